"""What fields= says of a write's fields that the worker processes must know before any field spec
exists (h5feed/_write.py makes the specs from the first sample, in the writing process): each
value is made into a payload in a worker (h5feed/_write_samples.py), and some values mean
another thing in a field of another kind. A str or bytes value is text or bytes, but in a mask
field it is a mask file's path or its bytes, which the worker opens as a mask; an array is an
array field's value, but in a bytes field its bytes; a boxes field's values are converted from
its format (h5feed/_write_box_formats.py). Plain values, pickled to the
worker processes.
"""

from __future__ import annotations

from ._write_box_formats import BoxFormats


class GivenFields:
    """`box_formats`: the boxes fields' formats (BoxFormats; None: no boxes field given, xyxy);
    `masks`, `bytes_fields`: the names of the fields fields= makes masks, and bytes."""

    def __init__(self, box_formats: BoxFormats | None = None, masks=(), bytes_fields=()):
        self.box_formats = box_formats or BoxFormats()
        self.masks, self.bytes_fields = frozenset(masks), frozenset(bytes_fields)

    def is_mask(self, name: str) -> bool:
        """Whether fields= makes `name` a mask field."""
        return name in self.masks

    def is_bytes(self, name: str) -> bool:
        """Whether fields= makes `name` a bytes field."""
        return name in self.bytes_fields
