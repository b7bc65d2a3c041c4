"""The fields of a file h5feed.write writes (h5feed/_write.py): each field's spec, given by
fields= or inferred from the first sample written, and each sample's value (a payload's,
h5feed/_write_samples.py) conformed to it, or refused naming the row and the field.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping

import numpy as np

from . import _h5feed
from ._errors import InvalidArgumentError
from ._write_box_formats import box_format_argument
from ._write_samples import (ELEMENT_TYPES, GEOMETRIC_KINDS, PER_BOX_CANDIDATE, SampleRefused,
                             box_labels_value, boxes_value, mask_array, mask_shape, row_name)


def describe(kind: str, dtype: str, shape) -> str:
    """A field's kind, dtype and shape as the library writes them (FieldSpec::Describe):
    "uint8[40]", "float32[5,2]", "int64" (a scalar), "bytes", "text"; "mask uint8", "boxes",
    "box_labels", "box_values int32"."""
    if kind in ("mask", "box_values"):
        return f"{kind} {dtype}"
    if kind != "array":
        return kind
    return dtype + (f"[{','.join(map(str, shape))}]" if shape else "")


class FieldSpec:
    """A field of the file being written: its name, kind ("array", "bytes", "text", "mask",
    "boxes", "box_labels", "box_values"), for an array its element type (numpy's name) and one
    row's shape, for a mask its element type (uint8 or uint16), for box labels the boxes field
    they classify, for box values their element type and the boxes field they belong to, for
    boxes the format fields= gives them in ("" when it gives none; stored as
    xyxy whatever it is). `given`: set by fields= rather than inferred from the first sample."""

    __slots__ = ("name", "kind", "dtype", "shape", "given", "boxes", "box_format")

    def __init__(self, name, kind, dtype="", shape=(), given=False, boxes="", box_format=""):
        if kind in GEOMETRIC_KINDS:
            # Box values given without a dtype ("box_values of boxes") take the first sample's
            # (with_dtype); the others have theirs.
            dtype = {"boxes": "float32", "box_labels": "int64", "box_values": dtype}.get(
                kind, dtype or "uint8")
            shape = ()
        self.name, self.kind, self.dtype, self.shape, self.given, self.boxes = \
            name, kind, dtype, tuple(int(d) for d in shape), given, boxes or ""
        self.box_format = box_format_argument(f"fields[{name!r}]", box_format) \
            if box_format else ""
        if kind in ("box_labels", "box_values") and not self.boxes:
            raise SampleRefused(f"field {name!r} holds {kind.replace('_', ' ')}, but the file has "
                                "no boxes field for them (a field named 'boxes', or fields={NAME: "
                                "'boxes'}); or it has several: say which, as "
                                f"'{kind} of NAME'")
        # The library's checks: reserved names ("images", "labels", ...), element types, shapes.
        _h5feed.check_field_spec(name, kind, dtype or "uint8", list(self.shape), self.boxes)

    def with_dtype(self, value: tuple, row: int) -> "FieldSpec":
        """Box values given without a dtype, of the dtype of `value` (dataset[row]'s, a
        payload's (name, kind, dtype, shape, bytes)); any other spec as it is."""
        if self.kind != "box_values" or self.dtype:
            return self
        if value is None or value[1] not in ("array", "box_values", PER_BOX_CANDIDATE):
            raise SampleRefused(
                f"fields[{self.name!r}] makes box values of the dtype of the first sample "
                f"written, {row_name(row)}, which has "
                f"{'no value of it' if value is None else 'a ' + value[1] + ' value'}: give "
                f"it, as fields={{{self.name!r}: 'box_values int64 of {self.boxes}'}}")
        return FieldSpec(self.name, self.kind, value[2], given=True, boxes=self.boxes)

    def describe(self) -> str:
        described = describe(self.kind, self.dtype, self.shape)
        return f"{described} of {self.boxes}" if self.kind == "box_values" else described

    def native(self, size) -> tuple:
        """The binding's tuple; a mask of a file of one image size (`size`) has its shape."""
        shape = list(size) if self.kind == "mask" and size is not None else list(self.shape)
        return self.name, self.kind, self.dtype or "uint8", shape, self.boxes


# A mask's [H,W] (as a version 1 file's report describes it) is the file's image size: ignored.
_GEOMETRIC_DESCRIBED = re.compile(r"^\s*(?:mask(?:\s+(uint8|uint16))?(?:\s*\[[\d,\s]*\])?"
                                  r"|(boxes)(?:\s+(\w+))?|box_labels(?:\s+of\s+(\S+))?)\s*$")
# "box_values", "box_values int32", "box_values of boxes", "box_values float32 of NAME".
_BOX_VALUES_DESCRIBED = re.compile(r"^\s*box_values(?:\s+(?!of\b)(\w+))?(?:\s+of\s+(\S+))?\s*$")
_DESCRIBED = re.compile(r"^\s*(\w+)\s*(?:\[\s*(\d+(?:\s*,\s*\d+)*)\s*\])?\s*$")


def given_spec(name: str, spec, boxes: str = "") -> FieldSpec:
    """fields={name: spec}'s spec: "uint8[40]", "float32[5,2]", "int64" (a scalar), "bytes",
    "text", "mask" (uint8; "mask uint16"), "boxes" ("boxes xywh", "boxes cxcywh": given in that
    format, stored as xyxy), "box_labels" (of the file's boxes field,
    `boxes`; "box_labels of NAME" of another), "box_values" (one value per box, of the dtype the
    first sample's has; "box_values int32", "box_values of NAME", "box_values float32 of
    NAME"); a (dtype, shape) pair; a dict of kind, dtype (or
    type) and shape; or an object with those attributes (a FieldSpec of h5feed's)."""
    if not isinstance(name, str):
        raise TypeError(f"fields: the name {name!r} is not a str")
    per_box = _BOX_VALUES_DESCRIBED.match(spec) if isinstance(spec, str) else None
    if per_box:
        word, of = per_box.groups()
        dtype = _element_type(name, spec, word) if word else ""
        return FieldSpec(name, "box_values", dtype, given=True, boxes=of or boxes)
    geometric = _GEOMETRIC_DESCRIBED.match(spec) if isinstance(spec, str) else None
    if geometric:
        mask_type, is_boxes, box_format, of = geometric.groups()
        if is_boxes:
            return FieldSpec(name, "boxes", given=True, box_format=box_format or "")
        if spec.strip().startswith("mask"):
            return FieldSpec(name, "mask", mask_type or "uint8", given=True)
        return FieldSpec(name, "box_labels", given=True, boxes=of or boxes)
    if isinstance(spec, str):
        match = _DESCRIBED.match(spec)
        if not match:
            raise ValueError(f"fields[{name!r}] = {spec!r}: write a field as 'uint8[40]', "
                             "'float32[5,2]', 'int64' (a scalar), 'bytes' or 'text'")
        word, dims = match.group(1), match.group(2)
        if word in ("bytes", "text"):
            if dims is not None:
                raise ValueError(f"fields[{name!r}] = {spec!r}: a {word} value has a length of "
                                 f"its own in every row; give {word!r} alone")
            return FieldSpec(name, word, given=True)
        shape = tuple(int(d) for d in dims.split(",")) if dims else ()
        return FieldSpec(name, "array", _element_type(name, spec, word), shape, given=True)
    if isinstance(spec, tuple) and len(spec) == 2:
        dtype, shape = spec
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        return FieldSpec(name, "array", _dtype_name(name, dtype), shape, given=True)
    get = spec.get if isinstance(spec, Mapping) else lambda key: getattr(spec, key, None)
    kind = get("kind")
    if kind is not None:
        kind = str(getattr(kind, "name", kind)).lower().lstrip("k")
        dtype, described = get("dtype"), get("type")
        if dtype is None and isinstance(described, str):
            # A field of a report (h5feed.write's, inspect's) describes its field as its type
            # ("uint8[40]", "mask uint16", "box_labels of boxes"); else type is a dtype's name.
            try:
                parsed = given_spec(name, described, boxes)
            except (ValueError, TypeError):
                parsed = None
            if parsed is not None and parsed.kind == kind and \
                    (kind != "array" or not get("shape")):
                return parsed
            dtype = described if kind == "array" else None
        dtype = "" if dtype is None else _dtype_name(name, str(getattr(dtype, "name", dtype))
                                                     .lower().lstrip("k"))
        return FieldSpec(name, kind, dtype, tuple(get("shape") or ()), given=True,
                         boxes=get("boxes") or boxes,
                         box_format=(get("box_format") or "") if kind == "boxes" else "")
    raise TypeError(f"fields[{name!r}] = {spec!r}: give 'uint8[40]', 'text', 'bytes', a "
                    "(dtype, shape) pair or a dict of kind, dtype and shape (None: inferred "
                    "from the first sample)")


def _element_type(name: str, spec: str, word: str) -> str:
    """The element type `word` of fields[name] = spec names (numpy's name, or an alias numpy
    knows: "float" is float64, "f4" float32)."""
    try:
        dtype = np.dtype(word).name
    except TypeError:
        dtype = None
    if dtype not in ELEMENT_TYPES:
        raise ValueError(f"fields[{name!r}] = {spec!r}: {word!r} is no field type; give 'text' "
                         "(str values), 'bytes', 'mask', 'boxes', 'box_labels', 'box_values "
                         "int32', or an array of "
                         f"{', '.join(ELEMENT_TYPES)} as 'float32[5,2]' (a scalar: 'int64')")
    return dtype


def _dtype_name(name: str, dtype) -> str:
    """numpy's name of `dtype`: a numpy dtype or type, its name, or a torch dtype."""
    if type(dtype).__module__ == "torch":  # torch.float32 -> "float32"
        dtype = str(dtype).removeprefix("torch.")
    try:
        return np.dtype(dtype).name
    except TypeError:
        raise TypeError(f"fields[{name!r}]: {dtype!r} is not a dtype; give a numpy or torch "
                        "dtype or its name ('float32')") from None


def inferred_spec(value: tuple, row: int, boxes: str = "") -> FieldSpec:
    """The spec of a field whose first value (a payload's (name, kind, dtype, shape, bytes)),
    dataset[row]'s, is `value`; box labels classify the boxes field `boxes`."""
    name, kind, dtype, shape, _ = value
    if kind == "array" and 0 in tuple(shape):
        raise _empty_array(name, shape, row)
    try:
        return FieldSpec(name, kind, dtype, shape, boxes=boxes)
    except InvalidArgumentError as error:  # the library's message, which knows no row
        raise SampleRefused(f"{row_name(row)}, the first sample written: {error}") from None


def _empty_array(name: str, shape, row: int) -> SampleRefused:
    return SampleRefused(f"{row_name(row)}: field {name!r} is an empty array of shape "
                         f"{tuple(shape)}; every dimension of a field is at least 1 (store an "
                         f"empty value as bytes, fields={{{name!r}: 'bytes'}}, or pad it)")


def _geometric(value: tuple, spec: FieldSpec, row: int):
    """A geometric field's value as the bytes of a row of `spec`, or None when it cannot be."""
    _, kind, dtype, shape, data = value
    if kind not in (spec.kind, "array"):
        return None
    array = np.frombuffer(data, dtype).reshape(shape)
    if spec.kind == "mask":
        if len(mask_shape(shape)) != 2 or np.dtype(dtype).kind not in "biu":
            return None
        array = mask_array(spec.name, array, row)
        if array.dtype == np.uint16 and spec.dtype == "uint8":
            return None
        return array.astype("<" + np.dtype(spec.dtype).str[1:]).tobytes()
    if spec.kind == "boxes":
        return boxes_value(spec.name, array, row)[4]
    if spec.kind == "box_values":
        return _box_values(array, spec)
    return box_labels_value(spec.name, array, row)[4]


def _box_values(array: np.ndarray, spec: FieldSpec):
    """K values of one box each as the bytes of a row of `spec` (its dtype, little-endian), or
    None when they are not K values or the dtype does not keep them exactly."""
    if array.ndim != 1 or array.dtype.kind not in "biuf":
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        converted = array.astype(np.dtype(spec.dtype).newbyteorder("<"))
        kept = np.array_equal(converted.astype(array.dtype), array,
                              equal_nan=array.dtype.kind == "f")
    return converted.tobytes() if kept else None


def conform(value: tuple, spec: FieldSpec, row: int, first: str = "") -> bytes:
    """A payload's field value as the bytes of a row of `spec`, or SampleRefused naming the row
    and the field. A value must have the field's kind, dtype and shape; a number of another
    numeric type is converted when its values are kept exactly (an int in a float field, a
    float32 in a float64 one, integers that fit), and with a spec fields= gave, a float of
    another width that holds it (rounded, not infinite).
    `first`: the row whose value the spec was inferred from, named when the value differs."""
    name, kind, dtype, shape, data = value
    candidate = kind == PER_BOX_CANDIDATE
    if kind in ("box_values", PER_BOX_CANDIDATE):
        # A value one per box, certainly or perhaps, that the file holds per box or, a candidate
        # the first samples did not show so (h5feed/_write.py), per image.
        kind = "box_values" if spec.kind == "box_values" else "array"
    if spec.kind in GEOMETRIC_KINDS:
        conformed = _geometric((name, kind, dtype, shape, data), spec, row)
        if conformed is not None:
            return conformed
    elif kind == "array" and 0 in tuple(shape):
        raise _empty_array(spec.name, shape, row)
    elif kind == spec.kind and dtype == spec.dtype and tuple(shape) == spec.shape:
        return data
    if kind == "array" and spec.kind == "array" and tuple(shape) == spec.shape:
        array = np.frombuffer(data, dtype).reshape(shape)
        target = np.dtype(spec.dtype)
        if spec.given and array.dtype.kind == "f" and target.kind == "f":
            # A narrower float rounds a value, but one past its range would become infinite.
            with np.errstate(over="ignore"):
                converted = array.astype(target)
            if not np.array_equal(np.isfinite(converted), np.isfinite(array)):
                largest = array[np.isfinite(array) & ~np.isfinite(converted)].flat[0]
                raise SampleRefused(
                    f"{row_name(row)}: field {spec.name!r} holds {largest}, beyond the range of "
                    f"{spec.dtype} (at most {np.finfo(target).max}), which fields= makes it; "
                    "give the field a wider float")
            return converted.tobytes()
        # Any other number is converted when that keeps its values: a Python int among floats
        # ([1.0, 2.5] then [3, 4]), a float32 in a float64 field, ints that fit a narrower type.
        with np.errstate(over="ignore", invalid="ignore"):
            converted = array.astype(target)
            kept = np.array_equal(converted.astype(array.dtype), array,
                                  equal_nan=array.dtype.kind == "f")
        if kept:
            return converted.tobytes()
    whose = "as fields= says" if spec.given else \
        f"that of {first}, the first sample written" if first else "the first sample's"
    ragged = ""
    if not spec.given and kind == spec.kind == "array" and tuple(shape) == spec.shape:
        wider = np.promote_types(dtype, spec.dtype)
        if wider.kind == "f" and np.dtype(dtype).kind in "iu" and np.dtype(spec.dtype).kind in "iu":
            wider = None  # int64 and uint64: no type holds both
        ragged = "" if wider is None else (f" (values of both: give fields={{{spec.name!r}: "
                  f"'{describe('array', wider.name, shape)}'}}, which holds them)")
    if spec.kind == "mask" and spec.dtype == "uint8":
        ragged = (f" (class ids past 255: give fields={{{spec.name!r}: 'mask uint16'}}, which "
                  "holds both)")
    if kind == spec.kind == "array" and len(shape) == len(spec.shape) and shape:
        ragged = (f" (arrays whose shape varies from sample to sample: store each as bytes, "
                  f"fields={{{spec.name!r}: 'bytes'}} (or value.tobytes()), which "
                  f"np.frombuffer(row, '{dtype}') reads back, or pad them to one shape)")
    if candidate and spec.kind == "array":
        ragged = (f" (one value per box, as many as its boxes: the first samples measured did "
                  f"not show it; give fields={{{spec.name!r}: 'box_values of boxes'}})")
    raise SampleRefused(f"{row_name(row)}: field {spec.name!r} is {describe(kind, dtype, shape)}"
                        f", but the field is {spec.describe()} ({whose}); every sample's value "
                        f"must have the field's kind, dtype and shape{ragged}")
