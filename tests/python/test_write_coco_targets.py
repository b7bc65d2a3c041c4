"""h5feed.write of COCO's annotations as torchvision's CocoDetection gives them, (PIL image,
[{"bbox": [x, y, w, h], "category_id": c, "area": a, "iscrowd": 0, "segmentation": ..., "id":
..., "image_id": ...}, ...]) (docs/python.md, "COCO's annotations"): the bboxes stored as xyxy
boxes, the category ids as their box labels, area, iscrowd, id and image_id as box values (empty
for an image without annotations, in worker processes as in this one), the segmentation left
out with one warning for the whole dataset; the Loader's crops keep every value in step with its
box. A box format said otherwise than COCO's xywh is refused."""

import warnings

import h5py
import numpy as np
import pytest
from PIL import Image

import h5feed

HEIGHT, WIDTH = 48, 64


def annotation(row, k):
    x, y = 4.0 + 20 * k, 6.0 + 5 * k
    return {"bbox": [x, y, 18.0, 30.0 - 5 * k], "category_id": 1 + 10 * k + row % 5,
            "area": 18.0 * (30.0 - 5 * k), "iscrowd": (row + k) % 2,
            "segmentation": [[x, y, x + 18.0, y, x + 18.0, y + 10.0]],
            "id": 1000 * row + k, "image_id": row}


class CocoLike:
    """Row r: r % 4 annotations (row 0 none, as COCO's images without any)."""

    def __len__(self):
        return 12

    def __getitem__(self, row):
        image = Image.fromarray(np.full((HEIGHT, WIDTH, 3), row * 20, np.uint8))
        return image, [annotation(row, k) for k in range(row % 4)]


@pytest.mark.parametrize("workers", [0, 2])
def test_coco_annotations_are_boxes_labels_and_box_values(tmp_path, workers):
    path = tmp_path / "coco.h5"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = h5feed.write(CocoLike(), path, workers=workers, progress=False)
    said = [str(w.message) for w in caught if "segmentation" in str(w.message)]
    assert len(said) == 1 and "instance masks" in said[0]  # once for the whole dataset
    assert [(f["name"], f["type"]) for f in report["fields"]] == [
        ("boxes", "boxes"), ("box_labels", "box_labels of boxes"),
        ("area", "box_values float64 of boxes"), ("iscrowd", "box_values int64 of boxes"),
        ("id", "box_values int64 of boxes"), ("image_id", "box_values int64 of boxes")]
    with h5py.File(path) as f:
        assert "segmentation" not in f and f.attrs["labelled"] == 0
        for n, source in enumerate(f["sources"][:]):
            row = int(source)  # the dataset's row (h5feed.write's sources)
            assert np.frombuffer(f["id"][n].tobytes(), "<i8").tolist() == \
                [1000 * row + k for k in range(row % 4)]
            expected = [annotation(row, k) for k in range(row % 4)]
            boxes = np.frombuffer(f["boxes"][n].tobytes(), "<f4").reshape(-1, 4)
            xywh = np.array([a["bbox"] for a in expected], np.float32).reshape(-1, 4)
            assert np.array_equal(boxes[:, :2], xywh[:, :2])
            assert np.array_equal(boxes[:, 2:], xywh[:, :2] + xywh[:, 2:])
            for key, dtype in (("box_labels", "<i8"), ("area", "<f8"), ("iscrowd", "<i8"),
                               ("image_id", "<i8")):
                stored = np.frombuffer(f[key][n].tobytes(), dtype).tolist()
                given = "category_id" if key == "box_labels" else key
                assert stored == [a[given] for a in expected]


def test_a_crop_keeps_each_annotations_values_with_its_box(tmp_path):
    path = tmp_path / "coco.h5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h5feed.write(CocoLike(), path, workers=0, progress=False)
    loader = h5feed.Loader(path, batch_size=4, fields=["boxes"], as_dict=True, dtype=None,
                           boxes_as_list=True, seed=5,
                           augment=h5feed.Augment(random_resized_crop=(24, 32),
                                                  scale=(0.2, 0.6), random_flip=True))
    kept = 0
    for epoch in range(4):
        loader.set_epoch(epoch)
        for batch in loader:
            for i, ids in enumerate(batch["id"]):
                for j, value in enumerate(ids.tolist()):
                    row, k = divmod(value, 1000)
                    given = annotation(row, k)
                    assert batch["box_labels"][i][j] == given["category_id"]
                    assert batch["iscrowd"][i][j] == given["iscrowd"]
                    assert batch["area"][i][j] == given["area"]  # carried, not recomputed
                    assert batch["image_id"][i][j] == row
                kept += len(ids)
                assert len(batch["boxes"][i]) == len(ids)
    # Of the 18 annotations of each of 4 epochs, the crops dropped some, their values with them.
    assert 0 < kept < sum(row % 4 for row in range(12)) * 4


def test_a_box_format_that_contradicts_cocos_is_refused(tmp_path):
    with pytest.raises(h5feed.InvalidArgumentError, match=r"say they are XYWH .* but "
                                                          r"box_format= says 'xyxy'"):
        h5feed.write(CocoLike(), tmp_path / "wrong.h5", workers=0, progress=False,
                     box_format="xyxy")


class ExportLike:
    """COCO-shaped annotations without COCO's own "id" and with a "score" of their own (as
    exports of other tools give them), where every other row has none (rows 1 and 3, or with
    `empty_first` rows 0, 2 and 4): an image without annotations gives none of those keys, COCO's
    four instead (_write_coco.COCO_NUMBERS)."""

    def __init__(self, empty_first):
        self.empty = 0 if empty_first else 1

    def __len__(self):
        return 5

    def __getitem__(self, row):
        image = Image.fromarray(np.full((HEIGHT, WIDTH, 3), row * 20, np.uint8))
        if row % 2 == self.empty:
            return image, []
        return image, [{"bbox": [4.0, 6.0, 18.0, 20.0], "category_id": 2, "iscrowd": 0,
                        "area": 360.0, "image_id": row, "score": 0.25 * row}]


@pytest.mark.parametrize("empty_first", [False, True])
def test_an_image_without_annotations_gets_no_box_values_of_the_keys_other_images_have(
        tmp_path, empty_first):
    path = tmp_path / "export.h5"
    h5feed.write(ExportLike(empty_first), path, workers=0, shuffle=False, progress=False)
    with h5py.File(path) as f:
        assert list(f.attrs["fields"]) == ["boxes", "box_labels", "iscrowd", "area", "image_id",
                                           "score"]  # no "id": the annotated images have none
        assert f["score"].attrs["h5feed_box_value_type"] == "float64"
        for n in range(5):
            count = 0 if n % 2 == (0 if empty_first else 1) else 1
            assert len(f["boxes"][n]) == 16 * count
            assert np.frombuffer(f["score"][n].tobytes(), "<f8").tolist() == [0.25 * n] * count
            assert np.frombuffer(f["image_id"][n].tobytes(), "<i8").tolist() == [n] * count
