"""What h5feed.write checks of a sample's masks and boxes (h5feed/_write.py), in the writing
process: a mask has its image's own height and width, and box labels one class per box. The
native writer moves both with the image when it resizes it (converters/sources/placed_fields.h),
from the image's own size, which it is told: a decoded image's shape, or an encoded image's
header (read by PIL, which reads the header alone).
"""

from __future__ import annotations

import io
import os
import warnings

from . import _h5feed
from ._write_samples import SampleRefused, row_name


def _header_size(kind: int, data: bytes, row: int) -> tuple:
    """The (height, width) an encoded image or an image file says it has, or (0, 0) when PIL
    cannot read its header (the native decoder then skips the image, or names the mask)."""
    try:
        from PIL import Image
    except ImportError as error:
        raise SampleRefused(f"{row_name(row)}: its image is encoded, and its masks or boxes need "
                            "the image's size, which h5feed.write reads with PIL: install "
                            "Pillow, or give the image decoded") from error
    source = os.fsdecode(data) if kind == _h5feed.IMAGE_PATH else io.BytesIO(data)
    try:
        try:
            return _opened_size(Image, source)
        except Image.DecompressionBombError:
            # PIL's limit on pixels is not h5feed's (max_pixels, which the native decoder
            # applies, skipping the image): the header's size is read past it. The limit is
            # PIL's module global, lifted for this one read in the writing process.
            limit, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None
            try:
                return _opened_size(Image, source)
            finally:
                Image.MAX_IMAGE_PIXELS = limit
    except (OSError, ValueError, SyntaxError):
        return 0, 0


def _opened_size(Image, source) -> tuple:
    if isinstance(source, io.BytesIO):
        source.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # max_pixels decides
        with Image.open(source) as image:
            width, height = image.size
    return height, width


class GeometryChecks:
    """The checks of the file's masks and boxes (specs: its FieldSpecs)."""

    def __init__(self, specs: list):
        self.masks = [(f, spec) for f, spec in enumerate(specs) if spec.kind == "mask"]
        index = {spec.name: f for f, spec in enumerate(specs)}
        self.labels = [(index[spec.boxes], f, spec) for f, spec in enumerate(specs)
                       if spec.kind == "box_labels"]
        self.geometric = any(spec.kind in ("mask", "boxes", "box_labels") for spec in specs)

    def check(self, row: int, payload: tuple, rows: list) -> tuple:
        """The image's own (height, width) for the native writer; raises SampleRefused naming
        the row for a mask of another size or box labels of another count than their boxes.
        rows: (payload value, row bytes) of each field."""
        kind, data, height, width = payload[:4]
        if not self.geometric:
            return height, width
        if height == 0:
            height, width = _header_size(kind, data, row)
        for f, spec in self.masks:
            mask_height, mask_width = rows[f][0][3]
            if height and (mask_height, mask_width) != (height, width):
                raise SampleRefused(
                    f"{row_name(row)}: mask {spec.name!r} is {mask_height} x {mask_width} "
                    f"(height x width), but its image is {height} x {width}; a mask has its "
                    "image's own height and width (the writer resizes both alike)")
        for boxes, f, spec in self.labels:
            count = len(rows[boxes][1]) // 16
            classes = len(rows[f][1]) // 8
            if count != classes:
                raise SampleRefused(
                    f"{row_name(row)}: {classes} box labels in {spec.name!r} for {count} boxes "
                    f"in {spec.boxes!r}; give one class per box")
        return height, width
