"""What h5feed.write checks of a sample's masks and boxes (h5feed/_write.py), in the writing
process: a mask has its image's own height and width, and box labels and values one value per
box. That
boxes are in the image's pixels, not normalized to 0-1, the native writer checks as it places
them (lib/normalized_boxes.h, the Writer's own check, which a C++ caller gets too). The
native writer moves both with the image when it resizes it (converters/sources/placed_fields.h),
from the image's own size, which it is told: a decoded image's shape, or an encoded image's
header (read by h5feed's own decoders, which read the header alone, with h5feed's limits).
"""

from __future__ import annotations

from . import _h5feed
import numpy as np

from ._write_samples import GEOMETRIC_KINDS, SampleRefused, mask_shape, row_name


class GeometryChecks:
    """The checks of the file's masks and box labels and values (specs: its FieldSpecs)."""

    def __init__(self, specs: list):
        self.masks = [(f, spec) for f, spec in enumerate(specs) if spec.kind == "mask"]
        index = {spec.name: f for f, spec in enumerate(specs)}
        self.per_box = [(index[spec.boxes], f, spec) for f, spec in enumerate(specs)
                        if spec.kind in ("box_labels", "box_values")]
        self.geometric = any(spec.kind in GEOMETRIC_KINDS for spec in specs)

    def check(self, row: int, payload: tuple, rows: list) -> tuple:
        """The image's own (height, width) for the native writer; raises SampleRefused naming
        the row for a mask of another size or box labels or values of another count than their
        boxes.
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
        for boxes, f, spec in self.per_box:
            count = len(rows[boxes][1]) // 16
            values = len(rows[f][1]) // np.dtype(spec.dtype).itemsize
            if count != values:
                what = "box labels" if spec.kind == "box_labels" else "values"
                raise SampleRefused(
                    f"{row_name(row)}: {values} {what} in {spec.name!r} for {count} boxes "
                    f"in {spec.boxes!r}; give one {'class' if what == 'box labels' else 'value'} "
                    "per box")
        return height, width
