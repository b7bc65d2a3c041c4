"""What h5feed.write checks of a sample's masks and boxes (h5feed/_write.py), in the writing
process: a mask has its image's own height and width, boxes are in its pixels (not normalized
to 0-1), and box labels one class per box. The
native writer moves both with the image when it resizes it (converters/sources/placed_fields.h),
from the image's own size, which it is told: a decoded image's shape, or an encoded image's
header (read by h5feed's own decoders, which read the header alone, with h5feed's limits).
"""

from __future__ import annotations

import numpy as np

from . import _h5feed
from ._write_samples import SampleRefused, mask_shape, row_name

# The smallest image (on either side) on which boxes that all lie within 0 to 1 are taken for
# boxes normalized to the image's size. In pixels such boxes all sit in the image's top-left
# pixel, less than a pixel wide or tall but [0, 0, 1, 1], and the loader drops every box under
# a pixel: stored as given, a data set whose boxes are fractions (as many store them, YOLO's
# and TensorFlow's) would lose every box without a word. On a smaller image, a few pixels on a
# side, both readings are plausible, and the boxes are kept as given.
NORMALIZED_BOXES_MIN_SIDE = 4


class GeometryChecks:
    """The checks of the file's masks and boxes (specs: its FieldSpecs)."""

    def __init__(self, specs: list):
        self.masks = [(f, spec) for f, spec in enumerate(specs) if spec.kind == "mask"]
        self.boxes = [(f, spec) for f, spec in enumerate(specs) if spec.kind == "boxes"]
        index = {spec.name: f for f, spec in enumerate(specs)}
        self.labels = [(index[spec.boxes], f, spec) for f, spec in enumerate(specs)
                       if spec.kind == "box_labels"]
        self.geometric = any(spec.kind in ("mask", "boxes", "box_labels") for spec in specs)

    def check(self, row: int, payload: tuple, rows: list) -> tuple:
        """The image's own (height, width) for the native writer; raises SampleRefused naming
        the row for a mask of another size, boxes normalized to 0-1 (_check_pixel_boxes) or
        box labels of another count than their boxes.
        rows: (payload value, row bytes) of each field."""
        kind, data, height, width = payload[:4]
        if not self.geometric:
            return height, width
        if height == 0:
            # Read natively, as the writer will read the image: (0, 0) when it cannot be, and
            # the writer then skips it, saying why.
            height, width = _h5feed.image_header_size(kind, data)
        for f, spec in self.masks:
            mask_height, mask_width = mask_shape(rows[f][0][3])
            if height and (mask_height, mask_width) != (height, width):
                raise SampleRefused(
                    f"{row_name(row)}: mask {spec.name!r} is {mask_height} x {mask_width} "
                    f"(height x width), but its image is {height} x {width}; a mask has its "
                    "image's own height and width (the writer resizes both alike)")
        for f, spec in self.boxes:
            _check_pixel_boxes(row, spec.name, rows[f][1], height, width)
        for boxes, f, spec in self.labels:
            count = len(rows[boxes][1]) // 16
            classes = len(rows[f][1]) // 8
            if count != classes:
                raise SampleRefused(
                    f"{row_name(row)}: {classes} box labels in {spec.name!r} for {count} boxes "
                    f"in {spec.boxes!r}; give one class per box")
        return height, width


def _check_pixel_boxes(row: int, name: str, data: bytes, height: int, width: int):
    """Raises SampleRefused for boxes (`data`: K x 4 float32 xyxy) that all lie within 0 to 1,
    one at least of some area, on an image of NORMALIZED_BOXES_MIN_SIDE pixels or more on each
    side (height 0: an image the writer skips). Boxes all of no area (a sample's placeholder
    [0, 0, 0, 0]) are kept as given."""
    if min(height, width) < NORMALIZED_BOXES_MIN_SIDE:
        return
    boxes = np.frombuffer(data, "<f4").reshape(-1, 4)
    if not len(boxes) or not ((boxes >= 0) & (boxes <= 1)).all():
        return
    area = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])
    if not area.any():
        return
    k = int(np.argmax(area))
    raise SampleRefused(
        f"{row_name(row)}: every box of {name!r} lies within 0 to 1 (box {k} is "
        f"{boxes[k].tolist()}), but its image is {height} x {width} (height x width): boxes "
        "normalized to the image's size would be stored as boxes under a pixel, which the "
        "loader drops; give x1, y1, x2, y2 in the image's pixels (normalized boxes times "
        "[width, height, width, height])")
