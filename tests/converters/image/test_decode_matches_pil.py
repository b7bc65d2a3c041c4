"""h5feed's image decoders against PIL 9.4: the proof that a decoded JPEG, PNG or WebP equals
numpy.asarray(Image.open(p).convert('RGB')) pixel for pixel.

Every variant is generated here (PIL for JPEG and WebP, a PNG writer of our own for every
colour type, bit depth, filter and interlace PIL cannot write), decoded with
decode_image_tool (env H5FEED_DECODE_IMAGE_TOOL) and compared with PIL. BMP, PNM and TIFF go
through OpenCV: equal shapes always, equal values where OpenCV and PIL agree (listed below).
"""

import io
import os
import struct
import subprocess
import warnings
import zlib

import numpy as np
import pytest
from PIL import Image

TOOL = os.environ.get("H5FEED_DECODE_IMAGE_TOOL")
pytestmark = pytest.mark.skipif(not TOOL, reason="H5FEED_DECODE_IMAGE_TOOL is not set")


# ---------------------------------------------------------------------------------------------
# Helpers

def decode(path, min_size=None):
    """Decodes with h5feed; returns an (H, W, 3) uint8 array."""
    out = str(path) + ".rgb"
    cmd = [TOOL, str(path), out]
    if min_size:
        cmd += ["--min", "%dx%d" % min_size]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, "decode_image_tool failed on %s: %s" % (path, proc.stderr)
    with open(out, "rb") as f:
        header = f.readline().split()
        h, w = int(header[0]), int(header[1])
        data = np.frombuffer(f.read(), dtype=np.uint8)
    assert data.size == h * w * 3
    return data.reshape(h, w, 3)


def decode_error(path):
    """Decodes bytes that must be refused; returns the error message."""
    proc = subprocess.run([TOOL, str(path), str(path) + ".rgb"], capture_output=True, text=True)
    assert proc.returncode == 1, "expected a decode error for %s, got rc=%d" % (
        path, proc.returncode)
    assert str(path) in proc.stderr, "the message must name the file: " + proc.stderr
    return proc.stderr


def pil_rgb(path):
    with Image.open(path) as im, warnings.catch_warnings():
        # "Palette images with Transparency expressed in bytes should be converted to RGBA":
        # irrelevant here, convert('RGB') drops transparency either way.
        warnings.simplefilter("ignore", UserWarning)
        return np.asarray(im.convert("RGB"))


def assert_same(path):
    ours, ref = decode(path), pil_rgb(path)
    assert ours.shape == ref.shape
    diff = np.argwhere(np.any(ours != ref, axis=2))
    assert diff.size == 0, "%s: %d pixels differ, first at (y, x) = %s: ours %s, PIL %s" % (
        os.path.basename(path), len(diff), tuple(diff[0]), ours[tuple(diff[0])],
        ref[tuple(diff[0])])


def content(h, w, channels, seed, high=256):
    """Smooth gradients, hard edges and noise: exercises every decoder path (DC and AC
    coefficients, chroma upsampling at edges, every PNG filter)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for c in range(channels):
        grad = (x * (c + 1) * 7 + y * (5 - c) * 3) % high
        noise = rng.integers(0, high, size=(h, w))
        block = ((x // 9 + y // 7 + c) % 3 == 0) * (high - 1)
        plane = np.where(rng.random((h, w)) < 0.3, noise, np.where(block > 0, block, grad))
        planes.append(plane)
    return np.stack(planes, axis=2).astype(np.uint16 if high > 256 else np.uint8)


# ---------------------------------------------------------------------------------------------
# A PNG writer for what PIL cannot write: 2- and 4-bit gray, 16-bit gray+alpha and RGBA,
# tRNS on gray and RGB, every filter type, Adam7 interlacing.

ADAM7 = [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2),
         (1, 0, 2, 1)]  # (first row, first column, row step, column step)
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _pack_rows(samples, depth):
    """(h, w, c) samples -> (h, rowbytes) uint8 in PNG sample layout."""
    h = samples.shape[0]
    flat = samples.reshape(h, -1)
    if depth == 16:
        return flat.astype(">u2").view(np.uint8).reshape(h, -1)
    if depth == 8:
        return flat.astype(np.uint8)
    per_byte = 8 // depth
    n = flat.shape[1]
    padded = np.zeros((h, -(-n // per_byte) * per_byte), dtype=np.uint8)
    padded[:, :n] = flat
    groups = padded.reshape(h, -1, per_byte)
    packed = np.zeros(groups.shape[:2], dtype=np.uint8)
    for i in range(per_byte):
        packed |= (groups[:, :, i] << (8 - depth * (i + 1))).astype(np.uint8)
    return packed


def _filter_rows(rows, bpp, first_filter):
    """Applies filter (first_filter + row) % 5 to each row, as the PNG spec defines them."""
    out = bytearray()
    prior = np.zeros(rows.shape[1], dtype=np.int32)
    for i, row in enumerate(rows.astype(np.int32)):
        ftype = (first_filter + i) % 5
        left = np.concatenate([np.zeros(bpp, np.int32), row[:-bpp]]) if bpp < len(row) else \
            np.zeros_like(row)
        upleft = np.concatenate([np.zeros(bpp, np.int32), prior[:-bpp]]) if bpp < len(row) \
            else np.zeros_like(row)
        if ftype == 0:
            f = row
        elif ftype == 1:
            f = row - left
        elif ftype == 2:
            f = row - prior
        elif ftype == 3:
            f = row - (left + prior) // 2
        else:
            p = left + prior - upleft
            pa, pb, pc = np.abs(p - left), np.abs(p - prior), np.abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prior, upleft))
            f = row - pred
        out.append(ftype)
        out += (f & 0xFF).astype(np.uint8).tobytes()
        prior = row
    return bytes(out)


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png(path, samples, color_type, depth, palette=None, trns=None, interlace=False,
              extra=()):
    if samples.ndim == 2:
        samples = samples[:, :, None]
    h, w, c = samples.shape
    assert c == CHANNELS[color_type]
    bpp = max(1, c * depth // 8)
    if interlace:
        raw = b""
        for n, (r0, c0, dr, dc) in enumerate(ADAM7):
            sub = samples[r0::dr, c0::dc]
            if sub.shape[0] and sub.shape[1]:
                raw += _filter_rows(_pack_rows(sub, depth), bpp, n)
    else:
        raw = _filter_rows(_pack_rows(samples, depth), bpp, 0)
    png = b"\x89PNG\r\n\x1a\n"
    png += _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0,
                                       1 if interlace else 0))
    for kind, data in extra:  # ancillary chunks placed before PLTE and IDAT
        png += _chunk(kind, data)
    if palette is not None:
        png += _chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).ravel()))
    if trns is not None:
        png += _chunk(b"tRNS", trns)
    png += _chunk(b"IDAT", zlib.compress(raw, 6))
    png += _chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


# ---------------------------------------------------------------------------------------------
# Variants that must equal PIL exactly.

H, W = 45, 67  # odd sizes: partial JPEG MCUs, partial bytes in packed PNG rows


def _rgb(h=H, w=W, seed=1):
    return Image.fromarray(content(h, w, 3, seed), "RGB")


def _gray(h=H, w=W, seed=2):
    return Image.fromarray(content(h, w, 1, seed)[:, :, 0], "L")


def _rgba(h=H, w=W, seed=3):
    return Image.fromarray(content(h, w, 4, seed), "RGBA")


def _cmyk(h=H, w=W, seed=4):
    return Image.fromarray(content(h, w, 4, seed), "CMYK")


def _palette_png(path, depth, interlace=False, trns=False, entries=None, index_range=None):
    entries = entries or 2 ** depth
    rng = np.random.default_rng(depth)
    palette = rng.integers(0, 256, size=(entries, 3))
    idx = rng.integers(0, index_range or entries, size=(H, W))
    write_png(path, idx, 3, depth, palette=palette, interlace=interlace,
              trns=bytes(range(0, 256, 256 // entries))[:entries] if trns else None)


def _gray16_values(seed):
    # Half the values at most 255 (PIL keeps them), half above (PIL clips them to 255).
    rng = np.random.default_rng(seed)
    return np.where(rng.random((H, W)) < 0.5, rng.integers(0, 256, (H, W)),
                    rng.integers(0, 65536, (H, W)))


def _encoded(image, **save_args):
    buf = io.BytesIO()
    image.save(buf, **save_args)
    return buf.getvalue()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _jpeg_extraneous_bytes(path):
    # Junk between two header markers: libjpeg warns "Corrupt JPEG data: 3 extraneous bytes
    # before marker 0xc4" and decodes normally; PIL does too.
    data = _encoded(_rgb(seed=14), format="JPEG")
    i = data.index(b"\xff\xc4")
    _write(path, data[:i] + b"\x00\x01\x02" + data[i:])


def _jpeg_flipped_entropy_byte(path):
    # Damaged scan data: libjpeg warns and decodes garbage, which PIL returns as the image.
    data = bytearray(_encoded(_rgb(seed=15), format="JPEG"))
    data[data.index(b"\xff\xda") + 200] ^= 0x55
    _write(path, bytes(data))


EXACT = {
    # JPEG, written by PIL (libjpeg-turbo)
    "jpeg_baseline_420.jpg": lambda p: _rgb().save(p, quality=90),
    "jpeg_444.jpg": lambda p: _rgb().save(p, quality=90, subsampling=0),
    "jpeg_422.jpg": lambda p: _rgb().save(p, quality=85, subsampling=1),
    "jpeg_progressive.jpg": lambda p: _rgb(seed=5).save(p, quality=80, progressive=True),
    "jpeg_progressive_444.jpg": lambda p: _rgb(seed=6).save(p, progressive=True, subsampling=0),
    "jpeg_optimized_q50.jpg": lambda p: _rgb(seed=7).save(p, quality=50, optimize=True),
    "jpeg_q100.jpg": lambda p: _rgb(seed=8).save(p, quality=100),
    "jpeg_large_420.jpg": lambda p: _rgb(301, 403, seed=9).save(p, quality=75),
    "jpeg_1x1.jpg": lambda p: _rgb(1, 1).save(p),
    "jpeg_gray.jpg": lambda p: _gray().save(p, quality=90),
    "jpeg_gray_progressive.jpg": lambda p: _gray(seed=10).save(p, progressive=True),
    "jpeg_cmyk.jpg": lambda p: _cmyk().save(p, quality=90),
    "jpeg_cmyk_progressive.jpg": lambda p: _cmyk(seed=11).save(p, progressive=True),
    "jpeg_exif_rotated.jpg": lambda p: _rgb(seed=12).save(
        p, exif=b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01"
                b"\x00\x06\x00\x00\x00\x00\x00\x00"),  # Orientation=6: PIL does not rotate
    "jpeg_named_png.png": lambda p: _rgb(seed=13).save(p, format="JPEG"),  # magic, not name
    "jpeg_trailing_bytes.jpg": lambda p: _write(
        p, _encoded(_rgb(seed=16), format="JPEG") + b"appended junk" * 10),
    "jpeg_extraneous_bytes.jpg": _jpeg_extraneous_bytes,
    "jpeg_flipped_entropy_byte.jpg": _jpeg_flipped_entropy_byte,
    # PNG, written by PIL (zlib, adaptive filters)
    "pil_rgb.png": lambda p: _rgb().save(p),
    "pil_rgba.png": lambda p: _rgba().save(p),
    "pil_gray.png": lambda p: _gray().save(p),
    "pil_gray_alpha.png": lambda p: _rgba().convert("LA").save(p),
    "pil_palette.png": lambda p: _rgb().quantize(200).save(p),
    "pil_palette_trns.png": lambda p: _rgb().quantize(16).save(p, transparency=3),
    "pil_1bit.png": lambda p: _gray().convert("1").save(p),
    "pil_gray16.png": lambda p: Image.fromarray(_gray16_values(1).astype(np.uint16)).save(p),
    "png_without_iend.png": lambda p: _write(p, _encoded(_rgb(seed=17), format="PNG")[:-12]),
    "png_trailing_bytes.png": lambda p: _write(
        p, _encoded(_rgb(seed=18), format="PNG") + b"appended junk"),
    # PNG, every colour type and bit depth
    "png_gray1.png": lambda p: write_png(p, content(H, W, 1, 20) >> 7, 0, 1),
    "png_gray2.png": lambda p: write_png(p, content(H, W, 1, 21) >> 6, 0, 2),
    "png_gray4.png": lambda p: write_png(p, content(H, W, 1, 22) >> 4, 0, 4),
    "png_gray8.png": lambda p: write_png(p, content(H, W, 1, 23), 0, 8),
    "png_gray8_trns.png": lambda p: write_png(p, content(H, W, 1, 24), 0, 8,
                                              trns=struct.pack(">H", 7)),
    "png_gray16.png": lambda p: write_png(p, _gray16_values(2), 0, 16),
    "png_gray16_trns.png": lambda p: write_png(p, _gray16_values(3), 0, 16,
                                               trns=struct.pack(">H", 300)),
    "png_gray16_small_values.png": lambda p: write_png(p, content(H, W, 1, 25), 0, 16),
    "png_rgb8.png": lambda p: write_png(p, content(H, W, 3, 26), 2, 8),
    "png_rgb8_trns.png": lambda p: write_png(p, content(H, W, 3, 27), 2, 8,
                                             trns=struct.pack(">HHH", 1, 2, 3)),
    "png_rgb16.png": lambda p: write_png(p, content(H, W, 3, 28, high=65536), 2, 16),
    "png_palette1.png": lambda p: _palette_png(p, 1),
    "png_palette2.png": lambda p: _palette_png(p, 2),
    "png_palette4.png": lambda p: _palette_png(p, 4),
    "png_palette8.png": lambda p: _palette_png(p, 8),
    "png_palette8_trns.png": lambda p: _palette_png(p, 8, trns=True),
    "png_palette4_short.png": lambda p: _palette_png(p, 4, entries=11),
    # Indices past the end of PLTE (invalid, found in the wild): PIL gives gray (i, i, i).
    "png_palette8_index_past_plte.png": lambda p: _palette_png(p, 8, entries=40,
                                                               index_range=256),
    "png_palette2_index_past_plte.png": lambda p: _palette_png(p, 2, entries=3, index_range=4),
    "png_rgb8_gama_sbit_text.png": lambda p: write_png(
        p, content(H, W, 3, 39), 2, 8,
        extra=[(b"gAMA", struct.pack(">I", 100000)), (b"sBIT", b"\x05\x06\x05"),
               (b"tEXt", b"Comment\x00written by the test")]),
    "pil_rgb_large_multi_idat.png": lambda p: _rgb(301, 403, seed=19).save(p),
    "png_gray_alpha8.png": lambda p: write_png(p, content(H, W, 2, 29), 4, 8),
    "png_gray_alpha16.png": lambda p: write_png(p, content(H, W, 2, 30, high=65536), 4, 16),
    "png_rgba8.png": lambda p: write_png(p, content(H, W, 4, 31), 6, 8),
    "png_rgba16.png": lambda p: write_png(p, content(H, W, 4, 32, high=65536), 6, 16),
    # Adam7
    "png_interlaced_rgb8.png": lambda p: write_png(p, content(H, W, 3, 33), 2, 8, interlace=True),
    "png_interlaced_gray1.png": lambda p: write_png(p, content(H, W, 1, 34) >> 7, 0, 1,
                                                    interlace=True),
    "png_interlaced_gray2.png": lambda p: write_png(p, content(H, W, 1, 35) >> 6, 0, 2,
                                                    interlace=True),
    "png_interlaced_gray16.png": lambda p: write_png(p, _gray16_values(4), 0, 16, interlace=True),
    "png_interlaced_palette4.png": lambda p: _palette_png(p, 4, interlace=True),
    "png_interlaced_gray_alpha8.png": lambda p: write_png(p, content(H, W, 2, 36), 4, 8,
                                                          interlace=True),
    "png_interlaced_rgba16.png": lambda p: write_png(p, content(H, W, 4, 37, high=65536), 6, 16,
                                                     interlace=True),
    "png_interlaced_tiny.png": lambda p: write_png(p, content(3, 2, 3, 38), 2, 8, interlace=True),
    # WebP (libwebp)
    "webp_lossy.webp": lambda p: _rgb().save(p, quality=80),
    "webp_lossy_large.webp": lambda p: _rgb(301, 403, seed=40).save(p, quality=60, method=6),
    "webp_lossless.webp": lambda p: _rgb(seed=41).save(p, lossless=True),
    "webp_lossy_alpha.webp": lambda p: _rgba(seed=42).save(p, quality=80),
    "webp_lossless_alpha.webp": lambda p: _rgba(seed=43).save(p, lossless=True),
    "webp_lossless_alpha_exact.webp": lambda p: _rgba(seed=44).save(p, lossless=True, exact=True),
    "webp_gray_source.webp": lambda p: _gray(seed=45).save(p, quality=90),
    "webp_trailing_bytes.webp": lambda p: _write(
        p, _encoded(_rgb(seed=46), format="WEBP") + b"appended junk"),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("images")


def make(folder, name, writers):
    path = folder / name
    if not path.exists():
        writers[name](str(path))
    return path


@pytest.mark.parametrize("name", sorted(EXACT))
def test_decode_equals_pil(folder, name):
    assert_same(make(folder, name, EXACT))


# JPEG variants PIL 9.4 cannot write, written with libjpeg's own API (encode_jpeg_tool):
# arithmetic coding, restart markers, rarer subsamplings, RGB without YCbCr, YCCK and plain
# CMYK (Adobe marker, transform 2 and 0). Every EXIF orientation is ignored, as PIL does.
ENCODE_JPEG_TOOL = os.environ.get("H5FEED_ENCODE_JPEG_TOOL")
LIBJPEG_VARIANTS = ["arithmetic", "arithmetic_progressive", "restart", "440", "411", "rgb",
                    "ycck", "cmyk"]


@pytest.mark.skipif(not ENCODE_JPEG_TOOL, reason="H5FEED_ENCODE_JPEG_TOOL is not set")
@pytest.mark.parametrize("variant", LIBJPEG_VARIANTS)
def test_jpeg_variants_pil_cannot_write_decode_equal_to_pil(folder, variant):
    channels = 4 if variant in ("ycck", "cmyk") else 3
    height, width = 37, 53  # not a whole number of MCUs in any subsampling
    raw = folder / f"{variant}.rgb"
    raw.write_bytes(content(height, width, channels, seed=60).tobytes())
    path = folder / f"libjpeg_{variant}.jpg"
    subprocess.run([ENCODE_JPEG_TOOL, str(raw), str(height), str(width), str(path), variant],
                   check=True)
    assert_same(path)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_every_exif_orientation_is_ignored_as_pil_ignores_it(folder, orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    path = folder / f"exif_orientation_{orientation}.jpg"
    _rgb(seed=70).save(path, quality=90, exif=exif.tobytes())
    assert_same(path)
    assert decode(path).shape == decode(make(folder, "jpeg_baseline_420.jpg", EXACT)).shape


def test_png_16_bit_gray_is_clipped_like_pil_not_scaled(folder):
    # Pins the surprising PIL behaviour: 16-bit gray 300 becomes 255, 200 stays 200.
    path = folder / "gray16_known.png"
    write_png(path, np.array([[0, 200, 255, 256, 300, 65535]]), 0, 16)
    assert pil_rgb(path)[0, :, 0].tolist() == [0, 200, 255, 255, 255, 255]
    assert decode(path)[0, :, 0].tolist() == [0, 200, 255, 255, 255, 255]


def test_cmyk_conversion_matches_pil_for_every_value_pair(folder):
    # A 4:4:4 quality-100 JPEG is not lossless, so the CMYK arithmetic is checked on the
    # values libjpeg returns: PIL's result on a CMYK image built from those values.
    path = folder / "cmyk_all.jpg"
    _cmyk(128, 256, seed=50).save(path, quality=100, subsampling=0)
    assert_same(path)


# ---------------------------------------------------------------------------------------------
# Reduced-size JPEG decoding equals PIL's draft mode, which asks libjpeg for the same scale.

@pytest.mark.parametrize("scale", [2, 4, 8])
def test_dct_scaled_jpeg_equals_pil_draft(folder, scale):
    path = make(folder, "jpeg_large_420.jpg", EXACT)
    with Image.open(path) as im:
        full_w, full_h = im.size
        # PIL's draft picks the largest scale with full // requested >= scale.
        im.draft("RGB", (full_w // scale, full_h // scale))
        ref = np.asarray(im.convert("RGB"))
    expected = (-(-full_h // scale), -(-full_w // scale))  # libjpeg rounds up
    assert ref.shape == expected + (3,)
    ours = decode(path, min_size=expected)
    assert ours.shape == ref.shape
    assert np.array_equal(ours, ref)


def test_dct_scale_never_goes_below_the_minimum(folder):
    path = make(folder, "jpeg_large_420.jpg", EXACT)  # 403 x 301
    assert decode(path, min_size=(76, 101)).shape == (76, 101, 3)   # 1/4 exactly fits
    assert decode(path, min_size=(77, 101)).shape == (151, 202, 3)  # 1/4 is a row short
    assert decode(path, min_size=(301, 1)).shape == (301, 403, 3)


# ---------------------------------------------------------------------------------------------
# BMP, PNM and TIFF through OpenCV: shapes always equal PIL's; values too, except where noted.

def _ascii_pnm(path, magic, samples, maxval):
    h, w = samples.shape[:2]
    header = "%s\n# written by the test\n%d %d\n" % (magic, w, h)
    if maxval:
        header += "%d\n" % maxval
    with open(path, "w") as f:
        f.write(header + " ".join(str(int(v)) for v in samples.ravel()) + "\n")


OTHER = {
    "bmp_rgb.bmp": lambda p: _rgb().save(p),
    "bmp_gray.bmp": lambda p: _gray().save(p),
    "bmp_1bit.bmp": lambda p: _gray().convert("1").save(p),
    "bmp_palette.bmp": lambda p: _rgb().quantize(64).save(p),
    "bmp_rgba.bmp": lambda p: _rgba().save(p),
    "ppm_rgb.ppm": lambda p: _rgb().save(p),
    "pgm_gray.pgm": lambda p: _gray().save(p),
    "pbm_1bit.pbm": lambda p: _gray().convert("1").save(p, format="PPM"),
    "ppm_ascii.ppm": lambda p: _ascii_pnm(p, "P3", content(H, W, 3, 60), 255),
    "pgm_ascii.pgm": lambda p: _ascii_pnm(p, "P2", content(H, W, 1, 61), 255),
    "pbm_ascii.pbm": lambda p: _ascii_pnm(p, "P1", content(H, W, 1, 62) >> 7, 0),
    "tiff_rgb.tif": lambda p: _rgb().save(p),
    "tiff_gray.tif": lambda p: _gray().save(p),
    "tiff_rgb_lzw.tiff": lambda p: _rgb(seed=63).save(p, compression="tiff_lzw"),
    "tiff_gray_deflate.tiff": lambda p: _gray(seed=64).save(p, compression="tiff_adobe_deflate"),
    "tiff_rgb_packbits.tif": lambda p: _rgb(seed=65).save(p, compression="packbits"),
    "tiff_rgba.tif": lambda p: _rgba().save(p),
    "tiff_1bit.tif": lambda p: _gray().convert("1").save(p),
    "tiff_palette.tif": lambda p: _rgb().quantize(64).save(p),
}
# Where OpenCV and PIL give different pixel values (measured on Debian bookworm, OpenCV 4.6,
# PIL 9.4); shapes still agree, and the pixels named here still must.
OTHER_DIFFERS = {
    # OpenCV reads 8-bit TIFF through libtiff's TIFFReadRGBA*, which premultiplies unassociated
    # alpha; PIL drops alpha. Equal where the image is opaque.
    "tiff_rgba.tif": "opaque",
}


@pytest.mark.parametrize("name", sorted(OTHER))
def test_opencv_formats_match_pil(folder, name):
    path = make(folder, name, OTHER)
    ours, ref = decode(path), pil_rgb(path)
    assert ours.shape == ref.shape
    if OTHER_DIFFERS.get(name) == "opaque":
        with Image.open(path) as im:
            opaque = np.asarray(im.convert("RGBA"))[:, :, 3] == 255
        assert opaque.any()
        ours, ref = ours[opaque], ref[opaque]
    assert np.array_equal(ours, ref), "%s: %d pixels differ from PIL" % (
        name, int(np.any(ours != ref, axis=2).sum()))


# ---------------------------------------------------------------------------------------------
# Broken files: refused with an error that names the file.

def _truncate(src, dst, keep):
    data = open(src, "rb").read()
    with open(dst, "wb") as f:
        f.write(data[:int(len(data) * keep)])


@pytest.mark.parametrize("name", ["jpeg_baseline_420.jpg", "jpeg_progressive.jpg",
                                  "jpeg_cmyk.jpg", "png_rgb8.png", "png_interlaced_rgb8.png",
                                  "png_gray16.png", "webp_lossy.webp", "webp_lossless.webp"])
def test_truncated_files_are_refused(folder, name):
    src = make(folder, name, EXACT)
    dst = folder / ("truncated_" + name)
    _truncate(src, dst, 0.6)
    with pytest.raises(Exception):  # PIL refuses them too
        pil_rgb(dst)
    assert "cannot decode" in decode_error(dst)


@pytest.mark.parametrize("name", ["bmp_rgb.bmp", "ppm_rgb.ppm", "tiff_rgb.tif"])
def test_truncated_opencv_files_are_refused(folder, name):
    src = make(folder, name, OTHER)
    dst = folder / ("truncated_" + name)
    _truncate(src, dst, 0.6)
    decode_error(dst)


def test_an_error_after_a_harmless_jpeg_warning_is_refused(folder):
    # Junk before DHT (a warning PIL and h5feed decode through), then a scan that names
    # undefined Huffman tables (an error for both).
    src = make(folder, "jpeg_extraneous_bytes.jpg", EXACT)
    data = bytearray(open(src, "rb").read())
    data[data.index(b"\xff\xda") + 6] = 0x33
    path = folder / "warning_then_error.jpg"
    path.write_bytes(bytes(data))
    with pytest.raises(Exception):
        pil_rgb(path)
    assert "Huffman table" in decode_error(path)


def test_an_empty_file_is_refused(folder):
    path = folder / "empty.jpg"
    path.write_bytes(b"")
    assert "empty" in decode_error(path)


@pytest.mark.parametrize("data", [b"<!DOCTYPE html><html>not found</html>", b"\x00" * 100,
                                  b"\xff\xd8", b"\x89PNG\r\n\x1a\n", b"RIFF\x10\x00\x00\x00WEBP",
                                  b"BM\x00\x00", b"P6\n", b"II*\x00\x08\x00\x00\x00"])
def test_garbage_is_refused(folder, data):
    path = folder / ("garbage_%d.jpg" % abs(hash(data)))
    path.write_bytes(data)
    decode_error(path)


def test_a_corrupted_png_crc_is_refused(folder):
    src = make(folder, "png_rgb8.png", EXACT)
    data = bytearray(open(src, "rb").read())
    data[60] ^= 0xFF  # inside IDAT
    path = folder / "bad_crc.png"
    path.write_bytes(bytes(data))
    decode_error(path)


def test_an_absurd_size_is_refused_before_allocating(folder):
    path = folder / "huge.png"
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2,
                                                              0, 0, 0))
    path.write_bytes(png + _chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + _chunk(b"IEND", b""))
    decode_error(path)
    bmp = folder / "huge.bmp"
    bmp.write_bytes(b"BM" + b"\x00" * 12 + struct.pack("<Iii", 40, 70000, 70000) + b"\x00" * 40)
    assert "its size 70000x70000 is more than h5feed decodes" in decode_error(bmp)
