"""What h5feed.write checks of a sample's masks and boxes (h5feed/_write.py), in the writing
process: a mask has its image's own height and width, and box labels one class per box. That
boxes are in the image's pixels, not normalized to 0-1, the native writer checks as it places
them (lib/normalized_boxes.h, the Writer's own check, which a C++ caller gets too). The
native writer moves both with the image when it resizes it (converters/sources/placed_fields.h),
from the image's own size, which it is told: a decoded image's shape, or an encoded image's
header (read by h5feed's own decoders, which read the header alone, with h5feed's limits).
"""

from __future__ import annotations

from . import _h5feed
from ._write_samples import SampleRefused, mask_shape, row_name


class GeometryChecks:
    """The checks of the file's masks and box labels (specs: its FieldSpecs)."""

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
        for boxes, f, spec in self.labels:
            count = len(rows[boxes][1]) // 16
            classes = len(rows[f][1]) // 8
            if count != classes:
                raise SampleRefused(
                    f"{row_name(row)}: {classes} box labels in {spec.name!r} for {count} boxes "
                    f"in {spec.boxes!r}; give one class per box")
        return height, width
