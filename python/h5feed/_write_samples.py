"""What h5feed.write makes of one sample (h5feed/_write.py): its payload, the compact form in
which a worker process hands it to the writing process, or a SampleRefused naming its row. The
file's fields, and each payload's values checked against them: h5feed/_write_fields.py.

A payload is a plain tuple, cheap to pickle:
    (image kind, image data, height, width, channels, label or None, fields)
- the image kind is _h5feed.IMAGE_PATH (data: the path, as bytes), IMAGE_ENCODED (data: the
  file's bytes, untouched, for the native decoders) or IMAGE_PIXELS (data: H x W x C uint8
  pixels, row-major; height, width and channels say their shape);
- fields: one (name, kind, dtype, shape, bytes) per value the sample carries, in its order:
  kind "array" (dtype: numpy's name, little-endian bytes in row-major order), "bytes" or
  "text" (UTF-8), or a geometric kind, which the writer moves with the image when it resizes
  it (converters/sources/placed_fields.h): "mask" (H x W uint8 or uint16, mask_array: a PIL
  image in mode L, P, 1, I or I;16, or an array of integers, a mask file's path or bytes under
  the name "mask" or a name fields= makes a mask, h5feed/_write_given_fields.py), "boxes"
  (K x 4 float32 xyxy in the image's pixels, converted from the format they were given in
  (h5feed/_write_box_formats.py), under the name "boxes", a name fields= makes boxes, or any
  name for a value that carries its box format, as tv_tensors.BoundingBoxes do),
  "box_labels" (K int64, one class per box, under the name "box_labels"), "box_values" (K
  values of one dtype, one per box: a COCO annotation's numbers, h5feed/_write_coco.py) and
  PER_BOX_CANDIDATE (the same of a detection target's key other than its boxes and labels whose
  one dimension is its K boxes: perhaps per box, which h5feed/_write.py decides over the
  samples it measures); a value of kind LEFT_OUT is no field's, a key of the sample the writer
  leaves out and warns of once (COCO's segmentation).
"""

from __future__ import annotations

import io
import math
import numbers
import os
import sys
from collections.abc import Mapping

import numpy as np

from . import _h5feed
from ._errors import InvalidArgumentError
from ._write_box_formats import BoxFormats, declared_box_format, to_xyxy
from ._write_coco import LEFT_OUT_KEY, coco_values, is_coco_target
from ._write_given_fields import GivenFields

PATH, ENCODED, PIXELS = _h5feed.IMAGE_PATH, _h5feed.IMAGE_ENCODED, _h5feed.IMAGE_PIXELS

# PIL's one-band modes: stored as one channel ("L", as PIL converts them); every other mode as
# RGB, as the native decoders deliver an image file.
_GRAY_MODES = frozenset({"1", "L", "LA", "La", "I", "I;16", "I;16B", "I;16L", "I;16N", "F"})
# The element types of an array field (h5feed/field.h, FieldType): numpy's names.
# The field names whose values are of a geometric kind without fields= saying so.
GEOMETRIC_NAMES = {"mask": "mask", "boxes": "boxes", "box_labels": "box_labels"}
GEOMETRIC_KINDS = ("mask", "boxes", "box_labels", "box_values")
# The payload kinds of a value that may be one per box, and of a key left out (the docstring).
PER_BOX_CANDIDATE = "box_values?"
LEFT_OUT = "left_out"
# A detection target's per-image keys, never per-box values whatever their length (the image's
# id as torchvision's detection references give it: a tensor of one element).
PER_IMAGE_TARGET_KEYS = frozenset({"image_id"})
# PIL's modes of a mask: class ids of 8 bits (a palette image's indices), 16, a binary mask's
# bits, or 32-bit integers ("I": what Pillow before 10 opens a 16-bit PNG as), whose values
# mask_array checks.
_MASK_MODES = frozenset({"L", "P", "1", "I", "I;16", "I;16L", "I;16B", "I;16N"})
_MASK_MAX = 65535
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
# What a sample gives as a field's value where it has none: a file stores a value of each field
# for every sample, and none is marked missing.
NO_VALUE = ("a value that says so (an empty str or bytes, a -1, a NaN; no boxes: an empty K x 4 "
            "array)")
# How the messages spell a box of each format (h5feed/_write_box_formats.py).
_FORMAT_WORDS = {"xyxy": "x1, y1, x2, y2", "xywh": "x, y, width, height",
                 "cxcywh": "center x, center y, width, height"}
ELEMENT_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "float32", "float64")


class SampleRefused(InvalidArgumentError):
    """A sample h5feed.write cannot store as it is; the message names its row and what is
    wrong."""


def row_name(row: int) -> str:
    return f"dataset[{row}]"


def _is_tensor(value) -> bool:
    """A torch.Tensor, or a subclass of it: torchvision's tv_tensors (Image, Mask, BoundingBoxes),
    which the v2 transforms and the datasets wrapped for them give. torch is imported wherever
    a value is a tensor."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _is_pil_image(value) -> bool:
    return type(value).__module__.startswith("PIL.") and hasattr(value, "tobytes") and \
        hasattr(value, "mode")


def _parts(sample, row: int):
    """(image, label or None, {field name: value}) of a tuple, list or dict sample; the target
    of an (image, target) pair that is a mask is the field "mask"."""
    if isinstance(sample, Mapping):
        # Hugging Face's CIFAR-10 (and other datasets of its hub) name the image column "img".
        image = "image" if "image" in sample else "img" if "img" in sample else None
        if image is None:
            raise SampleRefused(f"{row_name(row)} is a dict without the key 'image' (nor "
                                "'img'); a sample dict holds 'image', optionally 'label', and "
                                f"fields by name (its keys: {', '.join(map(repr, sample))})")
        values = {}
        for name, value in sample.items():
            if name in (image, "label"):
                continue
            if not isinstance(name, str):
                raise SampleRefused(f"{row_name(row)} has the key {name!r}: a field's name is "
                                    "a str")
            if name == "labels":  # the file's own dataset, and torchvision's boxes' classes
                raise SampleRefused(f"{row_name(row)} has the key 'labels', a name the file "
                                    "keeps for its own labels: the boxes' classes "
                                    "(torchvision's target['labels']) are 'box_labels', the "
                                    "sample's class 'label'")
            values[name] = value
        return sample[image], sample.get("label"), values
    if isinstance(sample, (tuple, list)):
        if len(sample) == 1:
            return sample[0], None, {}
        if len(sample) == 2:
            if _is_mask_target(sample[1]):
                return sample[0], None, {"mask": sample[1]}
            if isinstance(sample[1], Mapping) and "boxes" in sample[1]:
                return sample[0], None, _detection_fields(sample[1], row)
            if is_coco_target(sample[1]):
                return sample[0], None, coco_values(sample[1], row_name(row))
            return sample[0], sample[1], {}
        raise SampleRefused(f"{row_name(row)} is a {type(sample).__name__} of {len(sample)} "
                            "values; a sample is (image,), (image, label) or a dict of 'image', "
                            "'label' and fields by name")
    return sample, None, {}


# The keys of a detection target that are no field of their name: its classes are box labels,
# and a key named as a dict sample's image or label would read as one.
_TARGET_KEYS = {"labels": "box_labels", "box_labels": None, "image": None, "label": None,
                "masks": None}


def _detection_fields(target: Mapping, row: int) -> dict:
    """The fields of a detection target (torchvision's {"boxes": K x 4, "labels": K, ...}, as
    its detection datasets wrapped for transforms v2 and its detection references give them):
    "boxes", its "labels" as "box_labels", every other key a field of its name (make_payload
    refuses one that is no field's value, naming the key)."""
    fields = {}
    for key, value in target.items():
        if not isinstance(key, str) or (key in _TARGET_KEYS and _TARGET_KEYS[key] is None):
            why = ("a field's name is a str" if not isinstance(key, str) else
                   "the boxes' classes are its 'labels'" if key == "box_labels" else
                   "instance masks (K x H x W), which no field of a file holds: its mask is one "
                   "H x W of class ids, moved with the image (leave 'masks' out of the target, "
                   "as wrap_dataset_for_transforms_v2(target_keys=...) does, or give a dict "
                   "sample of a 'mask')" if key == "masks" else
                   "a sample's image and label are not given in its detection target")
            raise SampleRefused(f"{row_name(row)}'s detection target has the key {key!r}: {why} "
                                "(a detection target holds 'boxes', 'labels', stored as "
                                "'box_labels', and other values stored as fields of their "
                                "names)")
        fields[_TARGET_KEYS.get(key, key)] = value
    return fields


def _is_mask_target(target) -> bool:
    """Whether the target of an (image, target) sample is a segmentation mask, as
    torchvision's VOCSegmentation and SBDataset give (a PIL image), or a transform's array or
    tensor of two dimensions or more, where a label is a number."""
    if _is_pil_image(target):
        return True
    return (_is_tensor(target) or isinstance(target, np.ndarray)) and target.ndim >= 2 and \
        _elements(target) > 1


def _elements(value) -> int:
    """The number of elements of a tensor, an array or a number."""
    return value.numel() if _is_tensor(value) else int(np.size(value))


def _pixels(array: np.ndarray, row: int, what: str):
    if array.dtype != np.uint8:
        raise SampleRefused(f"{row_name(row)}'s image is {what} of {array.dtype}; images are "
                            "uint8, 0 to 255 (a float image in 0..1: (x * 255).round() as "
                            "uint8)")
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim == 3 and array.shape[2] == 4:
        # RGBA (torchvision's io.read_image of a PNG with alpha): its RGB, as PIL's
        # convert("RGB") makes of an RGBA image, the alpha dropped.
        array = array[:, :, :3]
    if array.ndim != 3 or array.shape[2] not in (1, 3):
        raise SampleRefused(f"{row_name(row)}'s image is {what} of shape {tuple(array.shape)}"
                            "; an image array is H x W x C (C 1, 3 or 4: RGBA) or H x W")
    height, width, channels = array.shape
    if height < 1 or width < 1:
        raise SampleRefused(f"{row_name(row)}'s image is empty ({height} x {width})")
    return PIXELS, array.tobytes(), height, width, channels


def _image(image, row: int):
    if isinstance(image, Mapping) and ("bytes" in image or "path" in image):
        # Hugging Face datasets' Image feature undecoded (decode=False): the file's bytes, or
        # None and its path; decoded natively as either.
        image = image.get("bytes") if image.get("bytes") is not None else image.get("path")
        if image is None:
            raise SampleRefused(f"{row_name(row)}'s image is a dict whose 'bytes' and 'path' "
                                "are both None (a Hugging Face Image value of no file)")
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
        if tensor.dim() == 3 and tensor.shape[0] in (1, 3, 4) and \
                tensor.shape[2] not in (1, 3, 4):
            tensor = tensor.permute(1, 2, 0)
        return _pixels(tensor.contiguous().numpy(), row, "a tensor")
    if isinstance(image, np.ndarray):
        return _pixels(image, row, "an array")
    raise SampleRefused(f"{row_name(row)}'s image is a {type(image).__name__}; an image is a PIL "
                        "image, a uint8 array or tensor (H x W x C or H x W), encoded bytes "
                        "(JPEG, PNG, WebP, ...), a file's path, or a dict of its 'bytes' or "
                        "'path' (Hugging Face's Image(decode=False))")


def _label(label, row: int):
    if label is None:
        return None
    value = label
    # A label of one element (SVHN's and PCam's are arrays of shape (1,) or (1, 1, 1)) is its
    # number; so is a 0-d tensor or array.
    if (_is_tensor(label) or isinstance(label, (np.ndarray, np.generic))) and \
            _elements(label) == 1:
        value = label.item()
    # A label read from a float column (a CSV through pandas, a float tensor of classes) is a
    # float of a whole number: its int, as int(2.0) is 2; 2.5 names no class.
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and \
            math.isfinite(value) and value == math.floor(value):
        value = math.floor(value)
    if isinstance(value, numbers.Integral):
        # /labels is int64: a larger label (a uint64, a Python int) has no row to go in.
        if not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise SampleRefused(f"{row_name(row)}'s label is {int(value)}, beyond int64, which "
                                "/labels holds; a label is a class number (0 to C - 1)")
        return int(value)
    if isinstance(label, Mapping):
        raise SampleRefused(
            f"{row_name(row)}'s label is a dict (keys {', '.join(map(repr, label))}); a label is "
            "an int. A detection target (torchvision's) is given as a dict sample: "
            "{'image': image, 'boxes': target['boxes'], 'box_labels': target['labels']}, "
            "its other values as fields")
    if value is label and (_is_tensor(label) or isinstance(label, (np.ndarray, list, tuple))):
        shape = tuple(np.shape(label.detach().cpu() if _is_tensor(label) else label))
        raise SampleRefused(
            f"{row_name(row)}'s label is a {type(label).__name__} of shape {shape}; a label is "
            "one int. A target of several values (multi-label attributes, as CelebA's) is a "
            "field of a dict sample: {'image': image, 'attrs': target}")
    raise SampleRefused(f"{row_name(row)}'s label is {value!r} ({type(label).__name__}); a label "
                        "is an int (or a float of a whole number, as 2.0, or a tensor or array of "
                        "one such element): give other targets as fields of a dict sample")


def mask_shape(shape) -> tuple:
    """A mask's H x W: its shape, less a leading or trailing dimension of 1 (torchvision's
    PILToTensor makes a 1 x H x W tensor of a mask)."""
    shape = tuple(shape)
    if len(shape) == 3 and 1 in (shape[0], shape[2]):
        return shape[1:] if shape[0] == 1 else shape[:2]
    return shape


def mask_array(name: str, array: np.ndarray, row: int) -> np.ndarray:
    """`array` as a mask: H x W (mask_shape) of uint8 or uint16, little-endian. A mask of another
    integer type (torchvision's segmentation references make int64 targets; a binary mask is
    bool) is converted when its values are class ids: uint8 when they are all below 256, else
    uint16. Raises SampleRefused naming the row for anything else."""
    shape = mask_shape(array.shape)
    if len(shape) != 2 or array.dtype.kind not in "biu":
        raise SampleRefused(f"{row_name(row)}: mask {name!r} is an array of {array.dtype} and "
                            f"shape {tuple(array.shape)}; a mask is an H x W (or 1 x H x W) "
                            "array of integer class ids, or a PIL image in mode L, P, I or I;16")
    array = array.reshape(shape)
    if array.dtype.name not in ("uint8", "uint16"):
        highest = int(array.max()) if array.size else 0
        lowest = int(array.min()) if array.size else 0
        if lowest < 0 or highest > _MASK_MAX:
            raise SampleRefused(f"{row_name(row)}: mask {name!r} holds "
                                f"{lowest if lowest < 0 else highest}; a mask's class ids are 0 "
                                f"to {_MASK_MAX} (an 'ignore' class is 255, as Pascal VOC's)")
        array = array.astype(np.uint8 if highest <= 255 else np.uint16)
    return np.ascontiguousarray(array, array.dtype.newbyteorder("<"))


def _opened_mask(name: str, value, row: int):
    """The mask file at a path, or in encoded bytes (a PNG), opened by PIL: its class ids as the
    file holds them (a "P" PNG's palette indices), as Image.open(path) gives them."""
    try:
        from PIL import Image
    except ImportError:
        raise SampleRefused(f"{row_name(row)}: mask {name!r} is a file's path or bytes, which "
                            "h5feed.write opens with PIL (pip install pillow), not installed: "
                            "give the mask as an array") from None
    source = io.BytesIO(bytes(value)) if isinstance(value, (bytes, bytearray, memoryview)) \
        else value
    try:
        with Image.open(source) as image:
            image.load()
            return image
    except (OSError, ValueError) as error:  # no file, or not an image PIL reads
        where = os.fsdecode(value) if not isinstance(source, io.BytesIO) else \
            f"{len(value):,} bytes"
        raise SampleRefused(f"{row_name(row)}: mask {name!r} ({where}) does not open as an "
                            f"image: {error}") from None


def _mask(name: str, value, row: int):
    if isinstance(value, (str, os.PathLike, bytes, bytearray, memoryview)):
        value = _opened_mask(name, value, row)
    if _is_pil_image(value):
        if value.mode not in _MASK_MODES:
            raise SampleRefused(f"{row_name(row)}: field {name!r} is a PIL image in mode "
                                f"{value.mode}; a mask is a PIL image in mode L, P, I or I;16, "
                                "or an H x W array of integer class ids (another image, a depth "
                                "map or a second view, is an array field: np.asarray(image))")
        array = np.asarray(value)
    else:
        array = np.asarray(value.detach().cpu().numpy() if _is_tensor(value) else value)
    array = mask_array(name, array, row)
    return name, "mask", array.dtype.name, tuple(array.shape), array.tobytes()


def _boxes_array(value) -> np.ndarray:
    # tv_tensors.BoundingBoxes (a torch.Tensor subclass, of module torchvision) as any tensor.
    if _is_tensor(value) or (hasattr(value, "detach") and hasattr(value, "numpy")):
        return np.asarray(value.detach().cpu().numpy())
    return np.asarray(value)


def boxes_value(name: str, value, row: int, formats: BoxFormats | None = None):
    """A boxes value as a payload's: K x 4 float32 x1, y1, x2, y2, converted from the format
    the value says it is in (tv_tensors' `.format`), or `formats` gives the field
    (h5feed/_write_box_formats.py); SampleRefused naming the row for boxes that are not."""
    box_format, given_by = (formats or BoxFormats()).of(name)
    try:
        declared = declared_box_format(value)
    except InvalidArgumentError as error:
        raise SampleRefused(f"{row_name(row)}: {name!r} holds {error}") from None
    if declared is not None:
        if given_by and declared != box_format:
            raise SampleRefused(
                f"{row_name(row)}: boxes {name!r} say they are {declared.upper()} (their "
                f".format, as torchvision's BoundingBoxes carry it), but {given_by} says "
                f"{box_format!r}; give the format once: leave it to the boxes, or convert them "
                "(torchvision.transforms.v2.ConvertBoundingBoxFormat)")
        box_format = declared
    array = _boxes_array(value)
    if array.size == 0:
        array = array.reshape(0, 4)
    if array.ndim != 2 or array.shape[1] != 4 or array.dtype.kind not in "iuf":
        raise SampleRefused(f"{row_name(row)}: boxes {name!r} is an array of {array.dtype} and "
                            f"shape {tuple(array.shape)}; boxes are a K x 4 array of numbers, "
                            f"{_FORMAT_WORDS[box_format]} in the image's pixels (K may be 0)")
    with np.errstate(over="ignore", invalid="ignore"):
        stored = np.ascontiguousarray(to_xyxy(array, box_format), "<f4")
    # A resize would drop a box of nan and clip one of inf; stored as given, either would
    # reach the loader's crops: neither is a place in an image (nor a float64 past float32's).
    finite = np.isfinite(stored).all(axis=1)
    if not finite.all():
        k = int(np.argmin(finite))
        raise SampleRefused(f"{row_name(row)}: box {k} of {name!r} is {array[k].tolist()}; a box "
                            f"is {_FORMAT_WORDS[box_format]}, finite float32 numbers in the "
                            "image's pixels")
    # x2 < x1 is no box: most often x, y, width, height (COCO's bbox) stored as x1, y1, x2, y2,
    # which the loader would drop as less than a pixel wide, every such box without a word.
    ordered = (stored[:, 2] >= stored[:, 0]) & (stored[:, 3] >= stored[:, 1])
    if not ordered.all():
        k = int(np.argmin(ordered))
        if box_format == "xyxy":
            raise SampleRefused(
                f"{row_name(row)}: box {k} of {name!r} is {array[k].tolist()}, whose x2 < x1 or "
                "y2 < y1; a box is x1, y1, x2, y2 in the image's pixels (boxes given as x, y, "
                "width, height, as COCO's, take box_format='xywh'; as center x, center y, "
                "width, height, box_format='cxcywh')")
        raise SampleRefused(f"{row_name(row)}: box {k} of {name!r} is {array[k].tolist()} "
                            f"({box_format}: {_FORMAT_WORDS[box_format]}), whose width or height "
                            "is negative")
    return name, "boxes", "float32", tuple(stored.shape), stored.tobytes()


def box_labels_value(name: str, value, row: int):
    array = np.asarray(value.detach().cpu().numpy() if _is_tensor(value) else value)
    if array.size == 0:
        array = array.reshape(0).astype(np.int64)
    # Classes read from text (YOLO's label files through np.loadtxt) are floats of whole numbers.
    if array.ndim == 1 and array.dtype.kind == "f" and np.isfinite(array).all() and \
            (array == np.round(array)).all() and (np.abs(array) < 2.0**63).all():
        array = array.astype(np.int64)
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


_GEOMETRIC = {"mask": _mask, "boxes": boxes_value, "box_labels": box_labels_value}


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


def _field(name: str, value, row: int, given: GivenFields):
    formats = given.box_formats
    if value is None:
        raise SampleRefused(f"{row_name(row)}: field {name!r} is None; a file stores a value of "
                            f"each field for every sample, none marked missing: give {NO_VALUE}")
    # Boxes by their name, by fields=, or by the format they carry (tv_tensors.BoundingBoxes).
    if GEOMETRIC_NAMES.get(name) == "boxes" or formats.is_boxes(name) or \
            (not _is_pil_image(value) and
             isinstance(getattr(getattr(value, "format", None), "name", None), str)):
        return boxes_value(name, value, row, formats)
    # A mask by fields= too: a path or bytes there is a mask file, not text or bytes.
    if given.is_mask(name):
        return _mask(name, value, row)
    if name in GEOMETRIC_NAMES:
        return _GEOMETRIC[GEOMETRIC_NAMES[name]](name, value, row)
    # An array (a tensor, a list) under a name fields= makes bytes: its little-endian bytes, for
    # arrays whose length varies from sample to sample (a detection target's per-box values).
    if given.is_bytes(name) and not isinstance(value, (str, bytes, bytearray, memoryview)) and \
            not _is_pil_image(value):
        made = _field(name, value, row, GivenFields(formats))
        return _variable_length(name, made[4], row) if made[1] == "array" else made
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


def _target_field(name: str, value, row: int, given: GivenFields):
    """A field of a detection target's key `name` (other than its boxes and labels)."""
    try:
        return _field(name, value, row, given)
    except SampleRefused as refused:
        raise SampleRefused(f"{refused} (the key {name!r} of its detection target, whose keys "
                            "other than 'boxes' and 'labels' are stored as fields of their "
                            "names: leave it out of the target)") from None


def make_payload(sample, row: int, given: GivenFields | None = None) -> tuple:
    """The payload of `sample`, dataset[row] (the module's docstring), its values made as the
    kinds fields= gives (`given`, h5feed/_write_given_fields.py): a mask field's path or bytes
    opened as a mask, boxes converted to x1, y1, x2, y2 from the formats it gives (none: each
    value's own, else xyxy). Raises SampleRefused naming the row for a sample h5feed.write
    cannot store."""
    image, label, values = _parts(sample, row)
    kind, data, height, width, channels = _image(image, row)
    given = given or GivenFields()
    # An (image, target) pair whose target is a detection target's dict: fields of its keys.
    detection = isinstance(sample, (tuple, list)) and len(sample) == 2 and label is None and \
        isinstance(sample[1], Mapping)
    coco = isinstance(sample, (tuple, list)) and len(sample) == 2 and label is None and \
        is_coco_target(sample[1])
    # A key of COCO's annotations left out is named for the writing process's warning.
    fields = tuple((name, LEFT_OUT, "", (), b"") if value is LEFT_OUT_KEY else
                   (_target_field if (detection or coco) and name not in GEOMETRIC_NAMES
                    else _field)(name, value, row, given) for name, value in values.items())
    if detection:
        fields = per_box_values(fields, PER_BOX_CANDIDATE)
    if coco:  # every number of an annotation is one per box
        fields = per_box_values(fields, "box_values", per_image=frozenset())
    return kind, data, height, width, channels, _label(label, row), fields


def per_box_values(fields: tuple, kind: str, per_image=PER_IMAGE_TARGET_KEYS) -> tuple:
    """A detection target's fields with each array of one value per box (one dimension, as
    long as its boxes: iscrowd, area, difficult, track ids) of payload kind `kind` ("box_values"
    or PER_BOX_CANDIDATE); the keys `per_image` never."""
    boxes = [value for value in fields if value[0] == "boxes"]
    if len(boxes) != 1:
        return fields
    count = boxes[0][3][0]
    return tuple(
        (name, kind, dtype, shape, data)
        if made == "array" and len(shape) == 1 and shape[0] == count and
        name not in per_image else (name, made, dtype, shape, data)
        for name, made, dtype, shape, data in fields)
