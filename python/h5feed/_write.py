"""h5feed.write: any dataset in Python, written as an h5feed file (docs/python.md, "Writing any
dataset").

The dataset's __getitem__ runs in worker processes (h5feed/_write_workers.py), which turn each
sample into a compact payload (h5feed/_write_samples.py); this process checks each against the
first sample's fields and label, and puts it, in the stored order, into the native writer
(_h5feed.SampleWriter, python/src/write_binding.h), whose threads decode, resize, encode,
compress and write without the GIL, exactly as `h5feed convert` does: the same pipeline, the
same temporary-name protocol, the same skipping of images that do not decode.
"""

from __future__ import annotations

import itertools
import numbers
import os
import sys
import time
import warnings
from collections.abc import Mapping

import numpy as np

from . import _h5feed
from ._convert import (_common, _own_size_common, _size, check_resize, count_argument,
                       mask_fill_argument, warn_skipped)
from ._errors import InvalidArgumentError
from ._write_box_formats import BoxFormats
from ._write_fields import conform, given_spec, inferred_spec
from ._write_given_fields import GivenFields
from ._write_samples import (LEFT_OUT, NO_VALUE, PER_BOX_CANDIDATE, PIXELS,
                             SampleRefused, make_payload, row_name)
from ._write_geometry import GeometryChecks
from ._write_spool import Spool
from ._write_workers import WorkerPool, fetch_in_process, payload_bytes


# The payload kinds of values one per box, certainly or perhaps (h5feed/_write_samples.py).
PER_BOX_KINDS = ("box_values", PER_BOX_CANDIDATE)


def _default_workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(8, cores or 1))


class _Progress:
    """One line on stderr, redrawn at most 4 times a second on a terminal, else every 10 s."""

    def __init__(self, path: str, total: int, enabled: bool):
        self._enabled, self._path, self._total = enabled, path, total
        self._terminal = enabled and sys.stderr.isatty()
        self._start = self._last = time.monotonic()

    def update(self, native, force: bool = False):
        if not self._enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < (0.25 if self._terminal else 10):
            return
        self._last = now
        done, total, skipped = native.progress()
        rate = done / max(now - self._start, 1e-9)
        line = (f"h5feed.write {self._path}: {done:,}/{total:,} samples ({100 * done // total}%)"
                f", {rate:,.0f}/s" + (f", {skipped:,} skipped" if skipped else ""))
        sys.stderr.write(("\r" + line) if self._terminal else line + "\n")
        sys.stderr.flush()

    def end(self, native):
        self.update(native, force=True)
        if self._enabled and self._terminal:
            sys.stderr.write("\n")


def _file_fields(fields, first: tuple, row: int, per_box=frozenset()) -> list:
    """The file's fields: fields= (names in its order; a spec of None is inferred), or the first
    sample's (dataset[row]'s) values in its order. `per_box`: the detection target's keys stored
    as box values (_per_box_keys); its other candidates are arrays of the image."""
    values = {value[0]: (value if value[1] not in PER_BOX_KINDS else (
        value[0], "box_values" if value[0] in per_box else "array") + tuple(value[2:]))
        for value in first[6] if value[1] != LEFT_OUT}
    if fields is not None and not isinstance(fields, Mapping):
        raise TypeError("fields: give a dict of {name: spec} ('uint8[40]', 'text', 'bytes', "
                        "'mask', 'boxes', ...; None to infer it from the first sample)")
    # The boxes field that box labels classify, when the file has one only.
    boxes = [name for name, spec in (fields or {}).items() if _gives_boxes(spec)] + \
        [value[0] for value in first[6] if value[1] == "boxes" and
         (fields is None or fields.get(value[0], "") is None)]
    boxes = boxes[0] if len(boxes) == 1 else ""
    if fields is None:
        return _boxes_named(inferred_spec(value, row, boxes) for value in values.values())
    specs = []
    for name, spec in fields.items():
        if spec is not None:
            specs.append(given_spec(name, spec, boxes).with_dtype(values.get(name), row))
        elif name in values:
            specs.append(inferred_spec(values[name], row, boxes))
        else:
            raise SampleRefused(f"fields[{name!r}] is to be inferred from the first sample "
                                f"written, {row_name(row)}, which has no value of it")
    return _boxes_named(specs)


def _per_box_keys(measured: list, fields) -> frozenset:
    """The keys of a detection target stored as box values (docs/python.md, "Per-box values"):
    those each measured sample (the first written, _measured) gives as a candidate, one
    dimension as long as its boxes (h5feed/_write_samples.py), when their box counts differ
    among those samples: a value that follows the count in each is one per box. When every
    measured sample has one count, a per-image value of that length (a tensor([image_id]) of
    images of one box each) looks the same: such a key stays an array of the image, with a
    warning that says how to make it per-box. A key fields= gives a spec of is what the spec
    says; one it leaves out is no field."""
    counts, candidates, certain = set(), None, set()
    for _, payload in measured:
        boxes = [value for value in payload[6] if value[0] == "boxes"]
        counts.add(boxes[0][3][0] if boxes else -1)
        names = {value[0] for value in payload[6] if value[1] == PER_BOX_CANDIDATE}
        candidates = names if candidates is None else candidates & names
        certain |= {value[0] for value in payload[6] if value[1] == "box_values"}
    if isinstance(fields, Mapping):
        candidates = {name for name in candidates if name in fields and fields[name] is None}
    if not candidates or len(counts) > 1:
        return frozenset(certain | (candidates or set()))
    warnings.warn(
        f"h5feed.write: {', '.join(map(repr, sorted(candidates)))} of the detection targets "
        f"held as many values as boxes in each of the first {len(measured)} samples, but every "
        f"one of them has {counts.pop()} boxes, so they may be values of the image: stored as "
        f"arrays of the image. If they hold one value per box (COCO's iscrowd and area), give "
        f"fields={{{sorted(candidates)[0]!r}: 'box_values of boxes', ...}} to keep them with "
        "their boxes", stacklevel=4)
    return frozenset(certain)


def _box_count(payload: tuple):
    """The number of boxes of a sample's one boxes value; None without one, or with several."""
    counts = [value[3][0] for value in payload[6] if value[1] == "boxes"]
    return counts[0] if len(counts) == 1 else None


def _with_box_values_of(first: tuple, measured: list) -> tuple:
    """The payload the file's fields are taken from: the first sample's; when its boxes are
    empty, with the per-box values of the first measured sample that has boxes in place of its
    own empty ones. An image without annotations says nothing of the keys the annotated ones
    hold (COCO's own four, an export's "score"), nor of their types."""
    if _box_count(first) != 0:
        return first
    model = next((payload for _, payload in measured if (_box_count(payload) or 0) > 0), None)
    if model is None:
        return first
    own = tuple(value for value in first[6]
                if value[1] not in PER_BOX_KINDS or tuple(value[3]) != (0,))
    names = {value[0] for value in own}
    borrowed = tuple(value for value in model[6]
                     if value[1] in PER_BOX_KINDS and value[0] not in names)
    return first[:6] + (own + borrowed,)


def _gives_boxes(spec) -> bool:
    """Whether a spec of fields= makes a boxes field."""
    return _given_kind(spec) == "boxes"


def _given_kind(spec) -> str:
    """The kind of field a spec of fields= makes when it is a geometric one: the first word of
    a str ("boxes xywh", "mask uint16"), or the kind of a dict (or object) of that kind, as a
    report's fields are."""
    if isinstance(spec, str):
        return (spec.split() or [""])[0]
    kind = spec.get("kind") if isinstance(spec, Mapping) else getattr(spec, "kind", None)
    return str(getattr(kind, "name", kind)).lower().lstrip("k")


def _given_fields(fields, box_format) -> GivenFields:
    """What the worker processes must know of fields= (h5feed/_write_given_fields.py): the
    format of each boxes field's values, fields=' own ("boxes xywh"), else box_format=, and the
    fields it makes masks and bytes."""
    if fields is not None and not isinstance(fields, Mapping):
        fields = None  # refused with its message by _file_fields
    given = {name: spec for name, spec in (fields or {}).items()
             if spec is not None and isinstance(name, str)}
    formats = {name: given_spec(name, spec).box_format for name, spec in given.items()
               if _given_kind(spec) == "boxes"}
    masks = [name for name, spec in given.items() if _given_kind(spec) == "mask"]
    bytes_fields = [name for name, spec in given.items() if _given_kind(spec) == "bytes"]
    return GivenFields(BoxFormats(box_format, formats), masks, bytes_fields)


def _boxes_named(specs) -> list:
    """`specs`, each box labels or values field of a boxes field of them."""
    specs = list(specs)
    kinds = {spec.name: spec.kind for spec in specs}
    for spec in specs:
        if spec.kind in ("box_labels", "box_values") and kinds.get(spec.boxes) != "boxes":
            kind = kinds.get(spec.boxes, "")
            what = "is not a field of the file" if not kind else \
                f"is {'an' if kind[0] in 'aeiou' else 'a'} {kind} field, not boxes"
            boxes = ", ".join(name for name, kind in kinds.items() if kind == "boxes")
            raise InvalidArgumentError(
                f"field {spec.name!r} holds the {spec.kind.replace('_', ' ')} of "
                f"{spec.boxes!r}, which {what} (the file's boxes fields: {boxes or 'none'}); box "
                "labels and values belong to the boxes of a field named 'boxes' or given as "
                "'boxes' in fields=")
    return specs


def _classes(classes, dataset) -> list:
    if isinstance(classes, (str, bytes)):
        raise TypeError(f"classes={classes!r}: give the class names as a list, label i naming "
                        "classes[i]")
    given = "classes"
    if classes is None:
        classes, given = getattr(dataset, "classes", None), "dataset.classes"
        if not isinstance(classes, (list, tuple)) or not all(isinstance(c, str)
                                                             for c in classes):
            return []
    names = [str(c) for c in classes]
    # /classes holds UTF-8 strings, which end at a NUL (HDF5 and h5py would cut "a\0b" to "a").
    for i, name in enumerate(names):
        wrong = "holds a NUL character, where HDF5's strings end" if "\0" in name else \
            "is a str that UTF-8 cannot encode" if not _encodes(name) else ""
        if wrong:
            raise InvalidArgumentError(f"{given}[{i}] = {name!r} {wrong}; a class name is "
                                       "stored as UTF-8 text")
    return names


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: os.fsdecode's escape of a byte
        return False
    return True


class _Checks:
    """What every sample must agree on with the first, checked in the writing process."""

    def __init__(self, first_row: int, specs: list, labelled: bool, classes: list):
        self.specs, self.labelled, self.classes = specs, labelled, classes
        self.names = tuple(spec.name for spec in specs)
        self.first_row_name = row_name(first_row)
        self.geometry = GeometryChecks(specs)
        self.left_out_warned = False

    def values(self, row: int, payload: tuple) -> tuple:
        """The sample's field values as rows of the file's fields, in their order, and its
        image's own (height, width) as the native writer takes it (0, 0 unless it has pixels or
        masks or boxes, which the writer resizes with it)."""
        rows = self._values(row, payload)
        return [data for _, data in rows], self.geometry.check(row, payload, rows)

    def _values(self, row: int, payload: tuple) -> list:
        label = payload[5]
        values = tuple(value for value in payload[6] if value[1] != LEFT_OUT)
        if len(values) < len(payload[6]) and not self.left_out_warned:
            self.left_out_warned = True
            left_out = [value[0] for value in payload[6] if value[1] == LEFT_OUT]
            masks = " (instance masks: no field holds them)" if "segmentation" in left_out else ""
            warnings.warn(f"h5feed.write: {row_name(row)}'s annotations hold "
                          f"{', '.join(map(repr, left_out))}, which the file does not store"
                          f"{masks}; the boxes, their categories and their numbers are stored "
                          "(said once for the whole dataset)", stacklevel=5)
        if (label is not None) != self.labelled:
            raise SampleRefused(
                f"{row_name(row)} has {'a' if label is not None else 'no'} label, but the "
                f"first sample written ({self.first_row_name}) has "
                f"{'one' if self.labelled else 'none'}; every sample of a dataset has a label "
                "or none does (a file without labels)")
        if self.classes and not 0 <= label < len(self.classes):
            raise SampleRefused(f"{row_name(row)}'s label is {label}, which names none of the "
                                f"{len(self.classes)} classes (classes= or dataset.classes): a "
                                f"label is 0 to {len(self.classes) - 1}")
        first = self.first_row_name
        if tuple(value[0] for value in values) == self.names:
            return [(value, conform(value, spec, row, first))
                    for value, spec in zip(values, self.specs)]
        given = self._without_boxes(values)
        for spec in self.specs:
            if spec.name not in given:
                origin = "as fields= says" if spec.given else f"as {first}, the first written, has"
                raise SampleRefused(f"{row_name(row)} has no value of field {spec.name!r} "
                                    f"({origin}); every sample has one of each field: give "
                                    f"a sample without one {NO_VALUE}")
        extra = [name for name in given if name not in self.names]
        if extra:
            raise SampleRefused(
                f"{row_name(row)} has {', '.join(map(repr, extra))}, which the file has not as "
                f"fields (its fields: {', '.join(self.names) or 'none'}, from "
                f"{'fields=' if any(s.given for s in self.specs) else 'the first sample'}); "
                f"every sample has the same fields: give a sample without one {NO_VALUE}")
        return [(given[spec.name], conform(given[spec.name], spec, row, first))
                for spec in self.specs]


    def _without_boxes(self, values: tuple) -> dict:
        """{name: value} of a sample's values; for its boxes fields that hold no box, their box
        values fields of the file given empty rows where the sample has none, and its empty
        per-box values the file has no field of left out: one value per box of no box is
        nothing, whichever keys the sample's source gives an image without annotations."""
        given = {value[0]: value for value in values}
        empty = {name for name, value in given.items() if value[1] == "boxes" and
                 value[3][0] == 0}
        if not empty:
            return given
        for spec in self.specs:
            if spec.kind == "box_values" and spec.boxes in empty and spec.name not in given:
                given[spec.name] = (spec.name, "box_values", spec.dtype, (0,), b"")
        return {name: value for name, value in given.items()
                if name in self.names or value[1] not in PER_BOX_KINDS or value[3] != (0,)}


def write(dataset, path, *, size=None, resize: str = "crop", max_side: int | None = None,
          encoding: str = "raw", smart_threshold: int | None = None,
          compression: str | None = None, chunk: int | None = None,
          chunk_bytes: int | str | None = None, shuffle: bool = True, seed: int = 0,
          threads: int | None = None, memory_limit: int | str = "2G",
          overwrite: bool = False, strict: bool = False,
          max_pixels: int = _h5feed.DEFAULT_MAX_PIXELS, workers: int | None = None,
          fields: Mapping | None = None, classes=None, progress: bool = True,
          mask_fill: int = 0, box_format: str | None = None) -> dict:
    """Writes any dataset as an h5feed file at `path` (the input first, then the file, as
    convert_imagefolder(folder, out)); returns the conversion's report (the dict
    convert_imagefolder returns). docs/python.md, "Writing any dataset", says it all.

    dataset: map-style (len() and dataset[i]: a torchvision dataset, your own class), or any
    iterable of samples (kept in a temporary file beside `path` first, then written in the stored
    order). A sample: (image,), (image, label), (image, mask), (image, target) of a detection
    target ({"boxes": K x 4, "labels": K, ...}: boxes, box_labels, and each other key a field of
    its name), or a dict of "image" ("img" when it has no "image": Hugging Face's CIFAR-10),
    optionally "label", and fields by name. An image: a PIL image, a uint8 array or tensor (H x W x
    C or H x W; a tensor C x H x W as torchvision's), encoded bytes (JPEG, PNG, WebP, ...) or a
    file's path; bytes and paths are decoded natively, as convert_imagefolder decodes files. A
    label: an int (or a tensor or array of one; a float of a whole number, 2.0, is its int). A
    field: an array or number (its dtype and shape), bytes, or a str (text); a mask (a PIL image in
    mode L, P, 1, I or I;16, or an H x W array of integer class ids, or a mask file's path, under
    "mask" or a name fields= makes a mask), boxes (K x 4 in the image's pixels, not normalized to
    0-1, under "boxes"; a tv_tensors.BoundingBoxes under any name, in its own .format) and their
    classes (K ints under "box_labels"), resized with the image.

    size: every image fitted to (height, width) by `resize` (crop | stretch | pad): a version 1
    file. None: each image at its own size, its longer side capped at max_side (None: 512), in
    a version 2 file, stored as `encoding` says (raw | jpeg[:Q] | smart[:Q]). fields: {name:
    spec}: the file's fields, in that order ("uint8[40]", "float32[5,2]", "int64", "bytes",
    "text", or None: as the first sample's value; a "bytes" field stores an array as its bytes,
    for arrays whose length varies); None: the first sample's. classes: the
    labels' names (None: dataset.classes when it has them). mask_fill: the class id of a mask's
    border under resize="pad" (0-255; 255: VOC's "ignore"). workers: processes that call
    dataset[i] (None: the cores, at most 8; 0: this process). progress: a progress line on
    stderr. box_format: the boxes' format, "xyxy" (x1, y1, x2, y2; None: that, or what a value's
    .format says), "xywh" (x, y, width, height, COCO's) or "cxcywh" (center x, center y, width,
    height), converted to the xyxy a file stores; fields={NAME: "boxes xywh"} for one field.
    strict: as convert_imagefolder's, and a colour image in a file of gray images (the first
    samples' all were) is refused, not stored gray. The other options are
    convert_imagefolder's."""
    if isinstance(dataset, (str, bytes, os.PathLike)) or \
            not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"h5feed.write(dataset, path): the dataset comes first, then the file "
                        f"to write (as convert_imagefolder(folder, out)); given "
                        f"{type(dataset).__name__} and {type(path).__name__}")
    path = os.fspath(path)
    # Checked before any sample is read: an iterable is spooled whole before the writer starts.
    size = _size(size)
    max_side = count_argument("max_side", max_side)
    max_pixels = count_argument("max_pixels", max_pixels)
    mask_fill = mask_fill_argument(mask_fill)
    given_fields = _given_fields(fields, box_format)
    check_resize(size, resize)
    if size is not None and (max_side is not None or encoding != "raw"):
        raise ValueError("size stores every image at one size, which leaves nothing for "
                         f"{'max_side' if max_side is not None else 'encoding ' + encoding} "
                         "to do: give size, or max_side and encoding")
    workers = _default_workers() if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 0:
        raise ValueError(f"workers={workers!r}: give a number of processes, 0 for none")
    workers = int(workers)
    common = _common(chunk, None, shuffle, seed, threads, overwrite, strict, memory_limit)
    common = _own_size_common(common, compression, encoding, smart_threshold, chunk_bytes)
    if classes is not None:
        _classes(classes, dataset)  # its names checked
    if path.startswith(("http://", "https://", "s3://")):
        raise ValueError(f"cannot write {path.split('?')[0]}: it is a URL, and h5feed writes to "
                         f"a local path only (a disk, or a mounted network file system): write "
                         f"the file here, then upload it")
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise FileNotFoundError(f"cannot write {path}: its folder does not exist")
    # The samples fetched ahead of the one being put take a quarter of the budget; the native
    # side holds the rest (its queue, its chunk buffers, decoding).
    ahead_bytes = _h5feed.parse_memory_size(common["memory_limit"]) // 4
    cleanup = []  # what to close, each called with abandon=True when the writing failed
    failed = True
    try:
        if _map_style(dataset):
            count = len(dataset)
            order = _stored_order(count, common)
            if workers > 0 and count > 0:
                pool = WorkerPool(dataset, min(workers, count), given_fields)
                cleanup.append(pool.close)
                samples = pool.fetch(order, ahead_bytes)
            else:
                samples = fetch_in_process(dataset, order, given_fields)
        else:
            spool = Spool(os.path.dirname(path), os.path.basename(path))
            cleanup.append(lambda abandon: spool.close())
            for k, sample in enumerate(dataset):
                spool.add(make_payload(sample, k, given_fields))
            count = len(spool)
            samples = spool.fetch(_stored_order(count, common))
        if count == 0:
            raise ValueError("nothing to write: the dataset has no sample")
        report = _write_samples(path, samples, count, dataset, size, resize, mask_fill,
                                max_side, max_pixels, fields, classes, common, progress, cleanup,
                                ahead_bytes)
        failed = False
    finally:
        for close in reversed(cleanup):
            close(abandon=failed)
    warn_skipped(report, stacklevel=2)
    return report


def _map_style(dataset) -> bool:
    """Whether dataset[i] for i < len(dataset) are its samples. torch's IterableDataset has a
    __getitem__ (its base class's, which raises): it is an iterable."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(dataset, torch.utils.data.IterableDataset):
        return False
    return hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__") and \
        not isinstance(dataset, (str, bytes, Mapping))


def _stored_order(count: int, common: dict) -> np.ndarray:
    """The rows in the order the file stores them: the conversion's own (StoredOrder)."""
    return np.frombuffer(_h5feed.stored_order(count, common["shuffle"], common["seed"]),
                         np.int64)


# Samples read before the writer starts, whose bytes and text values size its groups and chunks
# of samples: enough that one short value first does not stand for the longer ones after it.
_MEASURED_SAMPLES = 32


def _measured(samples, ahead_bytes: int):
    """(the samples' value bytes, the images' channels, the samples measured, the same samples
    (the first of them listed apart, for _per_box_keys)): the
    most bytes a sample has in bytes and text values, among the first _MEASURED_SAMPLES (and no more
    than about `ahead_bytes` of them), which are kept and yielded again first. No field spec says
    how large such values are, and the writer holds as many samples as a chunk's: sized by the
    images alone, memory_limit would not bound them (converters/field_value_rows.h). The channels: 1
    when every one of those images is gray pixels, else 3: a few gray images among colour ones
    (ImageNet's, COCO's, opened without convert("RGB")) must not make every image of the file gray
    because one of them came first."""
    first = [next(samples)]
    held = payload_bytes(first[0][1])
    while len(first) < _MEASURED_SAMPLES and held < ahead_bytes:
        try:
            first.append(next(samples))
        except StopIteration:
            break
        held += payload_bytes(first[-1][1])
    value_bytes = max(sum(len(value[4]) for value in payload[6] if value[1] in ("bytes", "text"))
                      for _, payload in first)
    gray = all(payload[0] == PIXELS and payload[4] == 1 for _, payload in first)
    return value_bytes, 1 if gray else 3, first, itertools.chain(first, samples)


class _ColourLoss:
    """Warns once when a colour image goes into a file of gray images, which loses its colour;
    with strict=True, refuses it: strict stores nothing changed without an error."""

    def __init__(self, path: str, channels: int, measured: int, first_row: int, strict: bool):
        self._path, self._warned, self._strict = path, channels == 3, strict
        self._measured, self._first_row = measured, first_row

    def check(self, row: int, payload: tuple):
        if self._warned or (payload[0] == PIXELS and payload[4] == 1):
            return
        what = (f"{row_name(row)} is a colour image, but {self._path} stores gray images (the "
                f"first {self._measured} samples written, from {row_name(self._first_row)}, "
                "all were)")
        if self._strict:
            raise SampleRefused(f"{what}; strict=True stores no image changed: give every "
                                "image as RGB (image.convert(\"RGB\")), or every one gray "
                                "(image.convert(\"L\")), or leave strict off to store it gray")
        self._warned = True
        warnings.warn(f"h5feed.write: {what}: it and every later colour image are stored gray; "
                      "give every image as RGB (image.convert(\"RGB\")) to keep the colour",
                      stacklevel=4)


def _write_samples(path, samples, count, dataset, size, resize, mask_fill, max_side,
                   max_pixels, fields, classes, common, progress, cleanup, ahead_bytes) -> dict:
    value_bytes, channels, measured, samples = _measured(samples, ahead_bytes)
    per_box = _per_box_keys(measured, fields)
    row, first = next(samples)
    specs = _file_fields(fields, _with_box_values_of(first, measured), row, per_box)
    measured = len(measured)
    labelled = first[5] is not None
    if classes is not None and not labelled and len(classes):
        # Not an error (a script may pass its classes whatever the dataset), but never silent:
        # a dataset that forgot its labels would otherwise be noticed only in training.
        warnings.warn(f"h5feed.write: classes= names {len(classes)} classes, but "
                      f"{row_name(row)}, the first sample written, has no label, and so none "
                      "has: the file has no labels and no classes (give samples as (image, "
                      "label) to store them)", stacklevel=3)
    names = _classes(classes, dataset) if labelled else []
    checks = _Checks(row, specs, labelled, names)
    checked = checks.values(row, first)  # before the file: a first sample it cannot hold
    native = _h5feed.SampleWriter(
        path, count, size=size, resize=resize, mask_fill=mask_fill,
        max_side=_h5feed.DEFAULT_MAX_SIDE if max_side is None else max_side,
        channels=channels, max_pixels=max_pixels,
        classes=names,
        fields=[spec.native(size) for spec in specs], labelled=labelled, common=common,
        value_bytes=value_bytes)
    cleanup.append(lambda abandon: native.cancel())
    bar = _Progress(path, count, progress)
    colour_loss = _ColourLoss(path, channels, measured, row, common["strict"])
    payload = first
    while True:
        colour_loss.check(row, payload)
        values, (height, width) = checked
        kind, data, _, _, channels, label, _ = payload
        native.put(row, kind, data, height, width, channels, label or 0, values)
        bar.update(native)
        try:
            row, payload = next(samples)
        except StopIteration:
            break
        checked = checks.values(row, payload)
    report = native.finish()
    bar.end(native)
    return report
