"""The formats h5feed.write (h5feed/_write.py) takes boxes in, each converted to the x1, y1, x2, y2
pixels a boxes field stores (docs/format.md, "Masks and boxes") in the worker process that makes
the sample's payload (h5feed/_write_samples.py), before any check of the boxes.

A field's format is, in this order: what a value says of itself (torchvision's
tv_tensors.BoundingBoxes carries `.format`, a BoundingBoxFormat whose name is XYXY, XYWH or
CXCYWH), what fields= says of the field ("boxes xywh"), box_format=, else xyxy. A value's own
format that differs from one fields= or box_format= gives explicitly is refused: one of the two
is wrong, and guessing which would store wrong boxes without a word.
"""

from __future__ import annotations

import numpy as np

from ._errors import InvalidArgumentError

# x1, y1, x2, y2 (torchvision's XYXY, Pascal VOC's); x, y, width, height (XYWH, COCO's bbox);
# center x, center y, width, height (CXCYWH, DETR's targets; YOLO's, once in pixels).
BOX_FORMATS = ("xyxy", "xywh", "cxcywh")


def box_format_argument(where: str, value) -> str:
    """`value` as one of BOX_FORMATS (any case, or a BoundingBoxFormat); InvalidArgumentError
    naming `where` (the option that gave it) and the choices for anything else."""
    name = getattr(value, "name", value)
    if isinstance(name, str) and name.strip().lower() in BOX_FORMATS:
        return name.strip().lower()
    raise InvalidArgumentError(f"{where}: {value!r} is no box format; give one of "
                               f"{', '.join(map(repr, BOX_FORMATS))} (x1, y1, x2, y2; x, y, "
                               "width, height; center x, center y, width, height)")


def declared_box_format(value):
    """The format a value of boxes says it is in (tv_tensors.BoundingBoxes' `.format`, a
    BoundingBoxFormat: its name XYXY, XYWH or CXCYWH), lowercased; None when it says none.
    InvalidArgumentError for another BoundingBoxFormat (torchvision's rotated boxes)."""
    declared = getattr(value, "format", None)
    name = getattr(declared, "name", None)
    if not isinstance(name, str) or isinstance(value, (str, bytes)):
        return None
    if name.lower() not in BOX_FORMATS:
        raise InvalidArgumentError(
            f"boxes of format {name} (their .format): h5feed stores boxes whose sides follow "
            f"the image's axes, given as {', '.join(f.upper() for f in BOX_FORMATS)}")
    return name.lower()


def to_xyxy(boxes: np.ndarray, box_format: str) -> np.ndarray:
    """K x 4 `boxes` in `box_format` as float64 x1, y1, x2, y2 (a float32 value's conversion, so
    computed, rounds to what float32 arithmetic gives, as torchvision's convert_bounding_box_format
    computes it)."""
    boxes = boxes.astype(np.float64)
    if box_format == "xywh":
        return np.concatenate([boxes[:, :2], boxes[:, :2] + boxes[:, 2:]], axis=1)
    if box_format == "cxcywh":
        half = boxes[:, 2:] / 2
        return np.concatenate([boxes[:, :2] - half, boxes[:, :2] + half], axis=1)
    return boxes


class BoxFormats:
    """The formats of a write's boxes fields: `default` (box_format=; None: not given, xyxy) and
    `given` ({field name: format} of the boxes fields fields= names, the format it says or "").
    Plain values, pickled to the worker processes."""

    def __init__(self, default: str | None = None, given: dict | None = None):
        self.default = None if default is None else box_format_argument("box_format", default)
        self.given = dict(given or {})

    def is_boxes(self, name: str) -> bool:
        """Whether fields= makes `name` a boxes field."""
        return name in self.given

    def of(self, name: str) -> tuple:
        """(field `name`'s format, what gave it: "fields=", "box_format=" or "" when neither
        did and it is xyxy by default)."""
        if self.given.get(name):
            return self.given[name], f"fields[{name!r}]"
        if self.default is not None:
            return self.default, "box_format="
        return "xyxy", ""
