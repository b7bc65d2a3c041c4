"""COCO's annotations as torchvision's CocoDetection gives them, (image, [annotation, ...]) with
each annotation a dict of "bbox" ([x, y, width, height] pixels), "category_id", "area",
"iscrowd", "segmentation", "id" and "image_id", made into the values h5feed.write stores
(h5feed/_write_samples.py; docs/python.md, "COCO's annotations"): the bboxes as boxes in the
format they are in (xywh, converted to the xyxy a file stores), the category ids as their box
labels (as COCO numbers them), every other key whose values are numbers in each annotation as
box values of that name, one per box. A key of other values (the segmentation's polygons or
RLE: instance masks, which no field holds) is left out, named in the payload for the writing
process to warn of once.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ._errors import InvalidArgumentError

# The value of a key left out (coco_values), made a payload's LEFT_OUT value.
LEFT_OUT_KEY = object()
# The numbers of an annotation COCO gives, stored (empty) for an image without annotations, so
# that it has the fields an annotated image has.
COCO_NUMBERS = ("area", "iscrowd", "id", "image_id")


def is_coco_target(target) -> bool:
    """Whether an (image, target) sample's target is COCO's list of annotations: a list or tuple
    of dicts each holding "bbox", or an empty one (an image without annotations: no label is
    an empty list)."""
    return isinstance(target, (list, tuple)) and \
        all(isinstance(annotation, Mapping) and "bbox" in annotation for annotation in target)


class _Format:
    name = "XYWH"


class XywhBoxes:
    """COCO's bboxes, K x 4 x, y, width, height: a value that says its format as torchvision's
    BoundingBoxes do (.format.name), so that boxes_value converts them, and refuses a format
    fields= or box_format= says otherwise."""

    format = _Format()

    def __init__(self, boxes: np.ndarray):
        self.boxes = boxes

    def __array__(self, dtype=None, copy=None):
        return self.boxes if dtype is None else self.boxes.astype(dtype)


def _numbers(annotations, key: str):
    """The values of `key` in every annotation as an array, or None when one lacks it or holds
    anything but a number."""
    values = [annotation.get(key) for annotation in annotations]
    if not all(isinstance(v, (numbers.Real, np.generic)) and not isinstance(v, (str, bytes))
               for v in values):
        return None
    array = np.asarray(values)
    return array if array.dtype.kind in "biuf" else None


def coco_values(annotations, where: str) -> dict:
    """{name: value} of the sample's fields of COCO's `annotations`, LEFT_OUT_KEY the value of
    each key left out;
    InvalidArgumentError naming `where` (the sample) for a bbox or category_id that is not
    numbers."""
    try:
        boxes = np.asarray([annotation["bbox"] for annotation in annotations], np.float64)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{where}: an annotation's 'bbox' is not 4 numbers (COCO's "
                                   "x, y, width, height)") from None
    if boxes.size == 0:
        boxes = boxes.reshape(0, 4)
    labels = _numbers(annotations, "category_id")
    if labels is None:
        raise InvalidArgumentError(f"{where}: an annotation has no 'category_id' number; COCO's "
                                   "annotations name their category by it, stored as the box "
                                   "labels")
    values = {"boxes": XywhBoxes(boxes), "box_labels": labels.reshape(-1)}
    keys = list(dict.fromkeys(key for annotation in annotations for key in annotation)) \
        if annotations else list(COCO_NUMBERS)
    for key in keys:
        if key in ("bbox", "category_id"):
            continue
        array = _numbers(annotations, key) if annotations else \
            np.zeros(0, np.float64 if key == "area" else np.int64)
        values[key] = LEFT_OUT_KEY if array is None else array
    return values
