"""What h5feed.write makes of one sample (h5feed/_write.py): its payload, the compact form in
which a worker process hands it to the writing process, and the checks that every sample agrees
with the fields and labels of the first.

A payload is a plain tuple, cheap to pickle:
    (image kind, image data, height, width, channels, label or None, fields)
- the image kind is _h5feed.IMAGE_PATH (data: the path, as bytes), IMAGE_ENCODED (data: the
  file's bytes, untouched, for the native decoders) or IMAGE_PIXELS (data: H x W x C uint8
  pixels, row-major; height, width and channels say their shape);
- fields: one (name, kind, dtype, shape, bytes) per value the sample carries, in its order:
  kind "array" (dtype: numpy's name, little-endian bytes in row-major order), "bytes" or
  "text" (UTF-8), or a geometric kind, which the writer moves with the image when it resizes
  it (converters/sources/placed_fields.h): "mask" (H x W uint8 or uint16: a PIL image in mode
  L, P or I;16, or an array under the name "mask"), "boxes" (K x 4 float32 xyxy in the image's
  pixels, under the name "boxes") and "box_labels" (K int64, one class per box, under the name
  "box_labels").
"""

from __future__ import annotations

import numbers
import os
import re
from collections.abc import Mapping

import numpy as np

from . import _h5feed
from ._errors import InvalidArgumentError

PATH, ENCODED, PIXELS = _h5feed.IMAGE_PATH, _h5feed.IMAGE_ENCODED, _h5feed.IMAGE_PIXELS

# PIL's one-band modes: stored as one channel ("L", as PIL converts them); every other mode as
# RGB, as the native decoders deliver an image file.
_GRAY_MODES = frozenset({"1", "L", "LA", "La", "I", "I;16", "I;16B", "I;16L", "I;16N", "F"})
# The element types of an array field (h5feed/field.h, FieldType): numpy's names.
# The field names whose values are of a geometric kind without fields= saying so.
GEOMETRIC_NAMES = {"mask": "mask", "boxes": "boxes", "box_labels": "box_labels"}
GEOMETRIC_KINDS = ("mask", "boxes", "box_labels")
# PIL's modes of a mask: class ids of 8 bits (a palette image's indices) or 16.
_MASK_MODES = {"L": "uint8", "P": "uint8", "I;16": "uint16", "I;16L": "uint16",
               "I;16B": "uint16", "I;16N": "uint16"}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
ELEMENT_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "float32", "float64")


class SampleRefused(InvalidArgumentError):
    """A sample h5feed.write cannot store as it is; the message names its row and what is
    wrong."""


def row_name(row: int) -> str:
    return f"dataset[{row}]"


def _is_tensor(value) -> bool:
    return type(value).__module__ == "torch" and hasattr(value, "numpy")


def _is_pil_image(value) -> bool:
    return type(value).__module__.startswith("PIL.") and hasattr(value, "tobytes") and \
        hasattr(value, "mode")


def _parts(sample, row: int):
    """(image, label or None, {field name: value}) of a tuple, list or dict sample."""
    if isinstance(sample, Mapping):
        if "image" not in sample:
            raise SampleRefused(f"{row_name(row)} is a dict without the key 'image'; a sample "
                                "dict holds 'image', optionally 'label', and fields by name "
                                f"(its keys: {', '.join(map(repr, sample))})")
        values = {}
        for name, value in sample.items():
            if name in ("image", "label"):
                continue
            if not isinstance(name, str):
                raise SampleRefused(f"{row_name(row)} has the key {name!r}: a field's name is "
                                    "a str")
            values[name] = value
        return sample["image"], sample.get("label"), values
    if isinstance(sample, (tuple, list)):
        if len(sample) == 1:
            return sample[0], None, {}
        if len(sample) == 2:
            return sample[0], sample[1], {}
        raise SampleRefused(f"{row_name(row)} is a {type(sample).__name__} of {len(sample)} "
                            "values; a sample is (image,), (image, label) or a dict of 'image', "
                            "'label' and fields by name")
    return sample, None, {}


def _pixels(array: np.ndarray, row: int, what: str):
    if array.dtype != np.uint8:
        raise SampleRefused(f"{row_name(row)}'s image is {what} of {array.dtype}; images are "
                            "uint8, 0 to 255 (a float image in 0..1: (x * 255).round() as "
                            "uint8)")
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[2] not in (1, 3):
        detail = " (RGBA? give image[..., :3])" if array.ndim == 3 and array.shape[2] == 4 \
            else ""
        raise SampleRefused(f"{row_name(row)}'s image is {what} of shape {tuple(array.shape)}"
                            f"{detail}; an image array is H x W x C (C 1 or 3) or H x W")
    height, width, channels = array.shape
    if height < 1 or width < 1:
        raise SampleRefused(f"{row_name(row)}'s image is empty ({height} x {width})")
    return PIXELS, array.tobytes(), height, width, channels


def _image(image, row: int):
    if isinstance(image, (str, os.PathLike)):
        return PATH, os.fsencode(image), 0, 0, 0
    if isinstance(image, (bytes, bytearray, memoryview)):
        data = bytes(image)
        if not data:
            raise SampleRefused(f"{row_name(row)}'s image is empty bytes")
        return ENCODED, data, 0, 0, 0
    if _is_pil_image(image):
        mode = "L" if image.mode in _GRAY_MODES else "RGB"
        if image.mode != mode:
            image = image.convert(mode)
        width, height = image.size
        return PIXELS, image.tobytes(), height, width, 1 if mode == "L" else 3
    if _is_tensor(image):
        tensor = image.detach().cpu()
        # torchvision's uint8 images (io.read_image, transforms.PILToTensor) are C x H x W.
        if tensor.dim() == 3 and tensor.shape[0] in (1, 3) and tensor.shape[2] not in (1, 3):
            tensor = tensor.permute(1, 2, 0)
        return _pixels(tensor.contiguous().numpy(), row, "a tensor")
    if isinstance(image, np.ndarray):
        return _pixels(image, row, "an array")
    raise SampleRefused(f"{row_name(row)}'s image is a {type(image).__name__}; an image is a PIL "
                        "image, a uint8 array or tensor (H x W x C or H x W), encoded bytes "
                        "(JPEG, PNG, WebP, ...) or a file's path")


def _label(label, row: int):
    if label is None:
        return None
    value = label
    if (_is_tensor(label) or isinstance(label, (np.ndarray, np.generic))) and \
            np.ndim(label) == 0:
        value = label.item()
    if isinstance(value, numbers.Integral):
        # /labels is int64: a larger label (a uint64, a Python int) has no row to go in.
        if not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise SampleRefused(f"{row_name(row)}'s label is {int(value)}, beyond int64, which "
                                "/labels holds; a label is a class number (0 to C - 1)")
        return int(value)
    raise SampleRefused(f"{row_name(row)}'s label is {label!r} ({type(label).__name__}); a label "
                        "is an int (or a 0-d integer tensor or array): give other targets as "
                        "fields of a dict sample")


def _mask(name: str, value, row: int):
    if _is_pil_image(value):
        if value.mode not in _MASK_MODES:
            raise SampleRefused(f"{row_name(row)}: field {name!r} is a PIL image in mode "
                                f"{value.mode}; a mask is a PIL image in mode L, P or I;16, or "
                                "an H x W uint8 or uint16 array")
        array = np.asarray(value)
        dtype = _MASK_MODES[value.mode]
        array = array.astype(dtype) if array.dtype != dtype else array
    else:
        array = np.asarray(value.detach().cpu().numpy() if _is_tensor(value) else value)
        if array.ndim != 2 or array.dtype.name not in ("uint8", "uint16"):
            raise SampleRefused(f"{row_name(row)}: mask {name!r} is an array of {array.dtype} "
                                f"and shape {tuple(array.shape)}; a mask is an H x W uint8 or "
                                "uint16 array (or a PIL image in mode L, P or I;16)")
    array = array.astype(array.dtype.newbyteorder("<"))
    return name, "mask", array.dtype.name, tuple(array.shape), np.ascontiguousarray(array).tobytes()


def _boxes(name: str, value, row: int):
    array = np.asarray(value.detach().cpu().numpy() if _is_tensor(value) else value)
    if array.size == 0:
        array = array.reshape(0, 4)
    if array.ndim != 2 or array.shape[1] != 4 or array.dtype.kind not in "iuf":
        raise SampleRefused(f"{row_name(row)}: boxes {name!r} is an array of {array.dtype} and "
                            f"shape {tuple(array.shape)}; boxes are a K x 4 array of numbers, "
                            "x1, y1, x2, y2 in the image's pixels (K may be 0)")
    with np.errstate(over="ignore"):
        stored = np.ascontiguousarray(array, "<f4")
    # A resize would drop a box of nan and clip one of inf; stored as given, either would
    # reach the loader's crops: neither is a place in an image (nor a float64 past float32's).
    finite = np.isfinite(stored).all(axis=1)
    if not finite.all():
        k = int(np.argmin(finite))
        raise SampleRefused(f"{row_name(row)}: box {k} of {name!r} is {array[k].tolist()}; a box "
                            "is x1, y1, x2, y2, finite float32 numbers in the image's pixels")
    return name, "boxes", "float32", tuple(stored.shape), stored.tobytes()


def _box_labels(name: str, value, row: int):
    array = np.asarray(value.detach().cpu().numpy() if _is_tensor(value) else value)
    if array.size == 0:
        array = array.reshape(0).astype(np.int64)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise SampleRefused(f"{row_name(row)}: box labels {name!r} are an array of {array.dtype} "
                            f"and shape {tuple(array.shape)}; box labels are K integers, one "
                            "class per box")
    if array.dtype == np.uint64 and array.size and array.max() > _INT64_MAX:
        raise SampleRefused(f"{row_name(row)}: box labels {name!r} hold {int(array.max())}, "
                            "beyond int64, which box labels are stored as; a box label is a "
                            "class number")
    array = np.ascontiguousarray(array, "<i8")
    return name, "box_labels", "int64", tuple(array.shape), array.tobytes()


_GEOMETRIC = {"mask": _mask, "boxes": _boxes, "box_labels": _box_labels}


def _variable_length(name: str, value, row: int):
    """A str's or bytes' value: a text field's UTF-8, or a bytes field's bytes."""
    if isinstance(value, str):
        if "\0" in value:
            raise SampleRefused(f"{row_name(row)}: field {name!r} is a str holding a NUL "
                                f"character (at {value.index(chr(0))}), where HDF5's strings end; "
                                "store the value as bytes")
        try:
            kind, data = "text", value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise SampleRefused(f"{row_name(row)}: field {name!r} is a str that UTF-8 cannot "
                                f"encode ({error.reason} at position {error.start}); a text "
                                "field holds valid Unicode") from None
    else:
        kind, data = "bytes", bytes(value)
    if len(data) > _h5feed.MAX_FIELD_ROW_BYTES:
        raise SampleRefused(f"{row_name(row)}: field {name!r} is {kind} of {len(data):,} bytes, "
                            f"more than a row of a field holds ({_h5feed.MAX_FIELD_ROW_BYTES:,}, "
                            "2 GiB); store it as a file of its own and its path as text")
    return name, kind, "", (), data


def _field(name: str, value, row: int):
    if name in GEOMETRIC_NAMES:
        return _GEOMETRIC[GEOMETRIC_NAMES[name]](name, value, row)
    if _is_pil_image(value):
        return _mask(name, value, row)
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return _variable_length(name, value, row)
    if _is_tensor(value):
        try:
            value = value.detach().cpu().numpy()
        except TypeError:  # numpy has no such type: bfloat16, the complex halves
            raise SampleRefused(f"{row_name(row)}: field {name!r} is a tensor of {value.dtype}, "
                                "which numpy cannot hold; convert it (.float(), .half())") from None
    if isinstance(value, (list, tuple)):
        # numpy makes no array of a list of tensors of more than one element (a ValueError,
        # as of a ragged list); their arrays stack.
        value = [item.detach().cpu().numpy() if _is_tensor(item) else item for item in value]
    if isinstance(value, (numbers.Number, np.generic, np.ndarray, list)):
        try:
            array = np.asarray(value)
        except ValueError:  # a ragged list: rows of different lengths
            raise SampleRefused(f"{row_name(row)}: field {name!r} is a list whose items differ "
                                "in length; a field's value is one array of one shape (pad it, "
                                "or store it as bytes or text)") from None
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("<"))
        if array.dtype.name in ELEMENT_TYPES:
            return name, "array", array.dtype.name, tuple(array.shape), array.tobytes()
        what = (f"an int beyond 64 bits ({value})" if isinstance(value, numbers.Integral)
                else f"an array of {array.dtype}")
        if array.dtype.kind in "US" and isinstance(value, list):
            what = (f"a list of {type(value[0]).__name__} (store several strings as one str, "
                    "json.dumps(...), in a text field)")
        elif array.dtype.kind == "O" and isinstance(value, list):
            what = ("a list numpy holds as objects (a None, an int beyond 64 bits, or values of "
                    "mixed types)")
    else:
        what = f"a {type(value).__name__}"
    raise SampleRefused(f"{row_name(row)}: field {name!r} is {what}; a field's value is an array "
                        f"or number of {', '.join(ELEMENT_TYPES)} (numpy, torch or Python), "
                        "bytes, or a str")


def make_payload(sample, row: int) -> tuple:
    """The payload of `sample`, dataset[row] (the module's docstring). Raises SampleRefused
    naming the row for a sample h5feed.write cannot store."""
    image, label, values = _parts(sample, row)
    kind, data, height, width, channels = _image(image, row)
    fields = tuple(_field(name, value, row) for name, value in values.items())
    return kind, data, height, width, channels, _label(label, row), fields


def describe(kind: str, dtype: str, shape) -> str:
    """A field's kind, dtype and shape as the library writes them (FieldSpec::Describe):
    "uint8[40]", "float32[5,2]", "int64" (a scalar), "bytes", "text"; "mask uint8", "boxes",
    "box_labels"."""
    if kind == "mask":
        return f"mask {dtype}"
    if kind != "array":
        return kind
    return dtype + (f"[{','.join(map(str, shape))}]" if shape else "")


class FieldSpec:
    """A field of the file being written: its name, kind ("array", "bytes", "text", "mask",
    "boxes", "box_labels"), for an array its element type (numpy's name) and one row's shape,
    for a mask its element type (uint8 or uint16), for box labels the boxes field they
    classify. `given`: set by fields= rather than inferred from the first sample."""

    __slots__ = ("name", "kind", "dtype", "shape", "given", "boxes")

    def __init__(self, name, kind, dtype="", shape=(), given=False, boxes=""):
        if kind in GEOMETRIC_KINDS:
            dtype = {"boxes": "float32", "box_labels": "int64"}.get(kind, dtype or "uint8")
            shape = ()
        self.name, self.kind, self.dtype, self.shape, self.given, self.boxes = \
            name, kind, dtype, tuple(int(d) for d in shape), given, boxes or ""
        if kind == "box_labels" and not self.boxes:
            raise SampleRefused(f"field {name!r} holds box labels, but the file has no boxes "
                                "field for them (a field named 'boxes', or fields={NAME: "
                                "'boxes'}); or it has several: say which, as 'box_labels of "
                                "NAME'")
        # The library's checks: reserved names ("images", "labels", ...), element types, shapes.
        _h5feed.check_field_spec(name, kind, dtype or "uint8", list(self.shape), self.boxes)

    def describe(self) -> str:
        return describe(self.kind, self.dtype, self.shape)

    def native(self, size) -> tuple:
        """The binding's tuple; a mask of a file of one image size (`size`) has its shape."""
        shape = list(size) if self.kind == "mask" and size is not None else list(self.shape)
        return self.name, self.kind, self.dtype or "uint8", shape, self.boxes


# A mask's [H,W] (as a version 1 file's report describes it) is the file's image size: ignored.
_GEOMETRIC_DESCRIBED = re.compile(r"^\s*(?:mask(?:\s+(uint8|uint16))?(?:\s*\[[\d,\s]*\])?|(boxes)"
                                  r"|box_labels(?:\s+of\s+(\S+))?)\s*$")
_DESCRIBED = re.compile(r"^\s*(\w+)\s*(?:\[\s*(\d+(?:\s*,\s*\d+)*)\s*\])?\s*$")


def given_spec(name: str, spec, boxes: str = "") -> FieldSpec:
    """fields={name: spec}'s spec: "uint8[40]", "float32[5,2]", "int64" (a scalar), "bytes",
    "text", "mask" (uint8; "mask uint16"), "boxes", "box_labels" (of the file's boxes field,
    `boxes`; "box_labels of NAME" of another); a (dtype, shape) pair; a dict of kind, dtype (or
    type) and shape; or an object with those attributes (a FieldSpec of h5feed's)."""
    if not isinstance(name, str):
        raise TypeError(f"fields: the name {name!r} is not a str")
    geometric = _GEOMETRIC_DESCRIBED.match(spec) if isinstance(spec, str) else None
    if geometric:
        mask_type, is_boxes, of = geometric.groups()
        if is_boxes:
            return FieldSpec(name, "boxes", given=True)
        if spec.strip().startswith("mask"):
            return FieldSpec(name, "mask", mask_type or "uint8", given=True)
        return FieldSpec(name, "box_labels", given=True, boxes=of or boxes)
    if isinstance(spec, str):
        match = _DESCRIBED.match(spec)
        if not match:
            raise ValueError(f"fields[{name!r}] = {spec!r}: write a field as 'uint8[40]', "
                             "'float32[5,2]', 'int64' (a scalar), 'bytes' or 'text'")
        word, dims = match.group(1), match.group(2)
        if word in ("bytes", "text") and dims is None:
            return FieldSpec(name, word, given=True)
        shape = tuple(int(d) for d in dims.split(",")) if dims else ()
        return FieldSpec(name, "array", word, shape, given=True)
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
                         boxes=get("boxes") or boxes)
    raise TypeError(f"fields[{name!r}] = {spec!r}: give 'uint8[40]', 'text', 'bytes', a "
                    "(dtype, shape) pair or a dict of kind, dtype and shape (None: inferred "
                    "from the first sample)")


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
                         "empty value as bytes, or pad it)")


def _geometric(value: tuple, spec: FieldSpec, row: int):
    """A geometric field's value as the bytes of a row of `spec`, or None when it cannot be."""
    _, kind, dtype, shape, data = value
    if kind not in (spec.kind, "array"):
        return None
    array = np.frombuffer(data, dtype).reshape(shape)
    if spec.kind == "mask":
        if array.ndim != 2 or dtype not in ("uint8", "uint16") or \
                (dtype == "uint16" and spec.dtype == "uint8"):
            return None
        return array.astype("<" + np.dtype(spec.dtype).str[1:]).tobytes()
    if spec.kind == "boxes":
        return _boxes(spec.name, array, row)[4]
    return _box_labels(spec.name, array, row)[4]


def conform(value: tuple, spec: FieldSpec, row: int, first: str = "") -> bytes:
    """A payload's field value as the bytes of a row of `spec`, or SampleRefused naming the row
    and the field. A value must have the field's kind, dtype and shape; with a spec fields=
    gave, a number of another numeric type is converted when its values are kept exactly
    (integers) or it is a float of another width that holds it (rounded, not infinite).
    `first`: the row whose value the spec was inferred from, named when the value differs."""
    _, kind, dtype, shape, data = value
    if spec.kind in GEOMETRIC_KINDS:
        conformed = _geometric(value, spec, row)
        if conformed is not None:
            return conformed
    elif kind == "array" and 0 in tuple(shape):
        raise _empty_array(spec.name, shape, row)
    elif kind == spec.kind and dtype == spec.dtype and tuple(shape) == spec.shape:
        return data
    if spec.given and kind == "array" and spec.kind == "array" and tuple(shape) == spec.shape:
        array = np.frombuffer(data, dtype).reshape(shape)
        target = np.dtype(spec.dtype)
        if array.dtype.kind == "f" and target.kind == "f":
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
        if array.dtype.kind in "iub" and target.kind in "iub":
            converted = array.astype(target)
            if np.array_equal(converted.astype(array.dtype), array):
                return converted.tobytes()
    whose = "as fields= says" if spec.given else \
        f"that of {first}, the first sample written" if first else "the first sample's"
    raise SampleRefused(f"{row_name(row)}: field {spec.name!r} is {describe(kind, dtype, shape)}"
                        f", but the field is {spec.describe()} ({whose}); every sample's value "
                        "must have the field's kind, dtype and shape")
