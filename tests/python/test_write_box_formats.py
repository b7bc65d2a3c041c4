"""h5feed.write's box formats (docs/python.md, "Masks and boxes"): boxes given as x, y, width,
height (box_format="xywh", COCO's) or center x, center y, width, height ("cxcywh"), for every
boxes field or for one (fields={NAME: "boxes xywh"}), are stored as the x1, y1, x2, y2 pixels a
boxes field holds: h5py reads the converted boxes, and the Loader's crops and flips move them
exactly as those of a file written from the same boxes given as xyxy. A value that carries its
format (torchvision's tv_tensors.BoundingBoxes, `.format`) is read in it; a format that
box_format= or fields= contradicts, or one h5feed does not know, is refused, before any file."""
import enum

import h5py
import numpy as np
import pytest
import torch

import h5feed

SHAPES = [(24 + 8 * (i % 3), 40 - 8 * (i % 2)) for i in range(8)]


def xyxy_boxes(row):
    """Row `row`'s boxes, x1, y1, x2, y2 in halves of a pixel (exact in every format), 0 to 3 of
    them, inside and across the image's border."""
    all_boxes = np.array([[2, 3, 14.5, 20], [10.5, 0, 31, 9], [0, 12, 6, 23.5]], np.float32)
    return all_boxes[:row % 4]


def in_format(boxes, box_format):
    x1, y1, x2, y2 = boxes.T
    if box_format == "xywh":
        return np.stack([x1, y1, x2 - x1, y2 - y1], axis=1)
    if box_format == "cxcywh":
        return np.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], axis=1)
    return boxes


class Detection:
    """Images of SHAPES with their boxes under `name`, given as `box_format` by `make` (an
    array by default)."""

    def __init__(self, box_format="xyxy", name="boxes", make=np.asarray):
        self.box_format, self.name, self.make = box_format, name, make

    def __len__(self):
        return len(SHAPES)

    def __getitem__(self, i):
        image = np.full((*SHAPES[i], 3), 10 * i, np.uint8)
        boxes = self.make(in_format(xyxy_boxes(i), self.box_format))
        labels = np.arange(len(xyxy_boxes(i))) + i
        return {"image": image, self.name: boxes, "box_labels": labels, "label": i % 2}


def stored_boxes(path, name="boxes"):
    """{dataset index: K x 4 boxes} of a written file, read with h5py."""
    with h5py.File(path) as f:
        return {int(source.decode()): np.frombuffer(f[name][n].tobytes(), "<f4").reshape(-1, 4)
                for n, source in enumerate(f["sources"][:])}


def crops(path, name="boxes"):
    """The boxes of two seeded views of every sample, each a random resized crop and flip."""
    views = [h5feed.Augment(random_resized_crop=(16, 16), random_flip=True),
             h5feed.Augment(random_resized_crop=(20, 12), random_flip=True)]
    loader = h5feed.Loader(path, batch_size=4, seed=3, fields=[name], as_dict=True,
                           dtype=None, views=views, boxes_as_list=True)
    return [[[box.clone() for box in batch[name][v]] for v in range(len(views))]
            for batch in loader]


def assert_same_crops(path, reference, name="boxes"):
    got, expected = crops(path, name), crops(reference)
    assert len(got) == len(expected) == 2
    moved = False
    for batch, reference_batch in zip(got, expected):
        for view, reference_view in zip(batch, reference_batch):
            for boxes, reference_boxes in zip(view, reference_view):
                assert torch.equal(boxes, reference_boxes)
                moved = moved or len(boxes) > 0
    assert moved  # some boxes survived the crops, in pixels of the 16 x 16 and 20 x 12 views


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The file of the boxes given as x1, y1, x2, y2."""
    path = tmp_path_factory.mktemp("reference") / "xyxy.h5"
    h5feed.write(Detection(), path, max_side=512, workers=0, progress=False)
    for i, boxes in stored_boxes(path).items():
        assert np.array_equal(boxes, xyxy_boxes(i))
    return path


@pytest.mark.parametrize("box_format", ["xywh", "cxcywh", "XYWH"])
def test_boxes_given_in_a_format_are_stored_as_xyxy_and_crop_as_those(tmp_path, reference,
                                                                      box_format):
    path = tmp_path / "out.h5"
    h5feed.write(Detection(box_format.lower()), path, max_side=512, box_format=box_format,
                 workers=0, progress=False)
    for i, boxes in stored_boxes(path).items():
        assert np.array_equal(boxes, xyxy_boxes(i))
    assert_same_crops(path, reference)


def test_a_resized_image_moves_its_converted_boxes_with_it(tmp_path):
    """Converted first, then scaled with the image as any boxes: size=(16, 20) stretches every
    image, a box's x by 20 / width and its y by 16 / height."""
    path, xyxy = tmp_path / "cxcywh.h5", tmp_path / "xyxy.h5"
    h5feed.write(Detection("cxcywh"), path, size=(16, 20), resize="stretch",
                 box_format="cxcywh", workers=2, progress=False)
    h5feed.write(Detection(), xyxy, size=(16, 20), resize="stretch", workers=0, progress=False)
    expected = stored_boxes(xyxy)
    for i, boxes in stored_boxes(path).items():
        height, width = SHAPES[i]
        scale = np.array([20 / width, 16 / height] * 2, np.float32)
        np.testing.assert_allclose(boxes, xyxy_boxes(i) * scale, atol=1e-4)
        assert np.array_equal(boxes, expected[i])


def test_fields_gives_one_boxes_fields_format(tmp_path, reference):
    path = tmp_path / "objects.h5"
    h5feed.write(Detection("xywh", name="objects"), path, max_side=512, workers=0,
                 progress=False, fields={"objects": "boxes xywh",
                                         "box_labels": "box_labels of objects"})
    for i, boxes in stored_boxes(path, "objects").items():
        assert np.array_equal(boxes, xyxy_boxes(i))
    assert_same_crops(path, reference, "objects")


class BoxFormat(enum.Enum):
    XYXY = 1
    XYWH = 2
    CXCYWH = 3
    XYWHR = 4  # torchvision 0.23's rotated boxes


class FormattedBoxes(torch.Tensor):
    """A tensor carrying its box format as torchvision's tv_tensors.BoundingBoxes does (its
    `.format`, a BoundingBoxFormat whose `.name` is XYXY, XYWH or CXCYWH, and `.canvas_size`):
    torchvision >= 0.16 has them, the 0.14 these tests run with does not, so this mirrors their
    attributes."""

    @staticmethod
    def __new__(cls, data, box_format, canvas_size):
        boxes = torch.as_tensor(np.asarray(data)).as_subclass(cls)
        boxes.format, boxes.canvas_size = box_format, canvas_size
        return boxes


def formatted(box_format):
    return lambda boxes: FormattedBoxes(boxes, BoxFormat[box_format.upper()], (0, 0))


@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.forks_workers)])
@pytest.mark.parametrize("box_format, given", [("xywh", None), ("cxcywh", None),
                                               ("xywh", "xywh"), ("xyxy", "xyxy")])
def test_boxes_that_carry_their_format_are_read_in_it(tmp_path, reference, workers, box_format,
                                                      given):
    path = tmp_path / "out.h5"
    h5feed.write(Detection(box_format, make=formatted(box_format)), path, max_side=512,
                 box_format=given, workers=workers, progress=False)
    for i, boxes in stored_boxes(path).items():
        assert np.array_equal(boxes, xyxy_boxes(i))
    assert_same_crops(path, reference)


def test_boxes_that_carry_their_format_make_a_boxes_field_under_any_name(tmp_path):
    path = tmp_path / "out.h5"
    report = h5feed.write(Detection("cxcywh", name="objects", make=formatted("cxcywh")), path,
                          max_side=512, workers=0, progress=False)
    assert {field["name"]: field["type"] for field in report["fields"]}["objects"] == "boxes"
    for i, boxes in stored_boxes(path, "objects").items():
        assert np.array_equal(boxes, xyxy_boxes(i))


@pytest.mark.parametrize("options, message", [
    ({"box_format": "xyxy"},
     r"dataset\[0\]: boxes 'boxes' say they are XYWH \(their \.format, as torchvision's "
     r"BoundingBoxes carry it\), but box_format= says 'xyxy'; give the format once"),
    ({"fields": {"boxes": "boxes cxcywh", "box_labels": None}},
     r"dataset\[0\]: boxes 'boxes' say they are XYWH .* but fields\['boxes'\] says 'cxcywh'"),
])
def test_a_format_that_contradicts_the_boxes_own_is_refused_naming_the_row(tmp_path, options,
                                                                          message):
    with pytest.raises(h5feed.InvalidArgumentError, match=message):
        h5feed.write(Detection("xywh", make=formatted("xywh")), tmp_path / "out.h5",
                     max_side=512, workers=0, progress=False, shuffle=False, **options)
    assert not list(tmp_path.iterdir())


def test_rotated_boxes_are_refused_naming_the_row(tmp_path):
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\]: 'boxes' holds boxes of format XYWHR \(their "
                       r"\.format\): h5feed stores boxes whose sides follow the image's axes, "
                       r"given as XYXY, XYWH, CXCYWH"):
        h5feed.write(Detection("xywh", make=formatted("xywhr")), tmp_path / "out.h5",
                     max_side=512, workers=0, progress=False, shuffle=False)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("options, message", [
    ({"box_format": "yolo"}, r"box_format: 'yolo' is no box format; give one of 'xyxy', "
                             r"'xywh', 'cxcywh' \(x1, y1, x2, y2; x, y, width, height; center x, "
                             r"center y, width, height\)"),
    ({"box_format": 4}, r"box_format: 4 is no box format; give one of 'xyxy'"),
    ({"fields": {"boxes": "boxes xyzw"}},
     r"fields\['boxes'\]: 'xyzw' is no box format; give one of 'xyxy', 'xywh', 'cxcywh'"),
])
def test_an_unknown_box_format_is_refused_naming_the_choices_before_any_sample(tmp_path,
                                                                              options, message):
    class Untouched(Detection):
        def __getitem__(self, i):
            raise AssertionError("no sample is read")

    with pytest.raises(h5feed.InvalidArgumentError, match=message):
        h5feed.write(Untouched(), tmp_path / "out.h5", max_side=512, workers=0, progress=False,
                     **options)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("box_format, box", [("xywh", [4, 4, -2, 6]),
                                             ("cxcywh", [4, 4, 6, -1])])
def test_a_box_of_negative_width_or_height_is_refused_naming_the_row(tmp_path, box_format, box):
    samples = [{"image": np.zeros((24, 32, 3), np.uint8), "boxes": [[1, 1, 2, 2], box]}]
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=rf"dataset\[0\]: box 1 of 'boxes' is \[.*\] \({box_format}: .*width, "
                       r"height\), whose width or height is negative"):
        h5feed.write(samples, tmp_path / "out.h5", box_format=box_format, workers=0,
                     progress=False)
    assert not list(tmp_path.iterdir())
