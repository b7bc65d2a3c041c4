"""`h5feed convert coco ANNOTATIONS.json IMAGES_DIR OUT` on a synthetic COCO instances JSON
(category ids with gaps, listed out of order; a crowd box; a box past the image's edge; an image
without annotations; a missing image file; an image whose file is not the JSON's size): every
stored box, read back with h5py as docs/format.md shows, equals its source box after the
conversion's resize, computed here by plain arithmetic; the category table is in the file; each
box's iscrowd and area (the JSON's, or its bbox's w x h without one) are box values kept and
dropped with it."""
import json

import h5py
import numpy as np
import pytest
from PIL import Image

from conftest import run_h5feed

CATEGORIES = [{"id": 90, "name": "toothbrush"}, {"id": 1, "name": "person"},
              {"id": 3, "name": "car"}]
LABEL = {1: 0, 3: 1, 90: 2}  # contiguous, in id order
IMAGES = [  # id, file, (height, width) in the JSON, (height, width) of the file or None
    (5, "a.jpg", (40, 60), (40, 60)),
    (2, "b.png", (50, 30), (50, 30)),
    (9, "c.jpg", (33, 47), (33, 47)),
    (7, "missing.jpg", (10, 10), None),
    (8, "wrong_size.jpg", (20, 20), (21, 20)),
]
ANNOTATIONS = [  # id, image id, category id, [x, y, w, h], iscrowd
    (1, 5, 3, [5, 6, 20, 10], 0),
    (2, 5, 90, [0, 0, 60, 40], 1),
    (3, 5, 1, [50, 30, 20, 20], 0),    # past the right and bottom edges: clipped to 60 x 40
    (4, 5, 1, [10, 10, 1.5, 1.5], 0),  # under 1 pixel once halved
    (5, 2, 1, [1.5, 2.5, 10, 40], 0),
    (6, 8, 3, [1, 1, 5, 5], 0),
]


def area(annotation_id):
    """Annotation a's area in the JSON: none for annotation 5 (its bbox's 10 x 40 then)."""
    return 400.0 if annotation_id == 5 else 100.0 * annotation_id + 0.25


def write_json(path, annotations=ANNOTATIONS, categories=CATEGORIES, images=IMAGES):
    path.write_text(json.dumps({
        "info": {"description": "synthetic"},
        "images": [{"id": i, "file_name": f, "height": s[0], "width": s[1]}
                   for i, f, s, _ in images],
        "categories": categories,
        "annotations": [dict({"id": a, "image_id": i, "category_id": c, "bbox": b, "iscrowd": k,
                              "segmentation": []}, **({} if a == 5 else {"area": area(a)}))
                        for a, i, c, b, k in annotations],
    }))
    return path


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    root = tmp_path_factory.mktemp("coco")
    (root / "images").mkdir()
    rng = np.random.default_rng(2)
    for _, name, _, size in IMAGES:
        if size is not None:
            pixels = rng.integers(0, 256, (*size, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(root / "images" / name)
    return write_json(root / "instances.json"), root / "images"


def source_boxes(image_id, keep_crowd=False):
    """The image's boxes as xyxy float32, clipped to it, and their labels, in JSON order."""
    height, width = next(s for i, _, s, _ in IMAGES if i == image_id)
    boxes, labels = [], []
    for _, i, c, (x, y, w, h), crowd in ANNOTATIONS:
        if i != image_id or (crowd and not keep_crowd):
            continue
        box = np.array([x, y, x + w, y + h], np.float32)
        box = np.clip(box, 0, np.array([width, height, width, height], np.float32))
        boxes.append(box)
        labels.append(LABEL[c])
    return np.array(boxes, np.float32).reshape(-1, 4), np.array(labels, np.int64)


def stored_boxes(path):
    """Each stored image's file name -> (boxes, labels), read as docs/format.md shows."""
    rows = {}
    with h5py.File(path) as f:
        for n, source in enumerate(s.decode() for s in f["sources"][:]):
            boxes = np.frombuffer(f["boxes"][n].tobytes(), "<f4").reshape(-1, 4)
            labels = np.frombuffer(f["box_labels"][n].tobytes(), "<i8")
            rows[source] = boxes, labels
    return rows


def stored_values(path):
    """Each stored image's file name -> (iscrowd, area) of its boxes, the box values."""
    with h5py.File(path) as f:
        assert f["area"].attrs["h5feed_box_value_type"] == "float64"
        return {source.decode(): (np.frombuffer(f["iscrowd"][n].tobytes(), "<i8").tolist(),
                                  np.frombuffer(f["area"][n].tobytes(), "<f8").tolist())
                for n, source in enumerate(f["sources"][:])}


def convert(coco, out, *options, check=3):
    annotations, images = coco
    result = run_h5feed("convert", "coco", annotations, images, out, "--json", *options,
                        check=check)
    return json.loads(result.stdout) if check in (0, 3) else result


def placed(boxes, labels, source, window, target):
    """Boxes through a resize: the `window` (top, left, height, width) of the source image
    scaled to the whole `target` (height, width), clipped, those under 1 pixel dropped."""
    top, left, wh, ww = window
    th, tw = target
    out = boxes.copy()
    for axis, (origin, extent, size) in enumerate([(left, ww, tw), (top, wh, th)]):
        for c in (axis, axis + 2):
            v = np.clip(out[:, c] - np.float32(origin), 0, np.float32(extent))
            out[:, c] = np.clip(v * np.float32(size / extent), 0, np.float32(size))
    keep = ((out[:, 2] - out[:, 0]) >= 1) & ((out[:, 3] - out[:, 1]) >= 1)
    return out[keep], labels[keep]


def test_boxes_at_their_own_size_are_the_json_boxes_as_xyxy(coco, tmp_path):
    report = convert(coco, tmp_path / "out.h5")
    assert report["labelled"] is False and report["images"] == 3 and report["inputs"] == 5
    assert [(f["name"], f["type"]) for f in report["fields"]] == [
        ("boxes", "boxes"), ("box_labels", "box_labels of boxes"),
        ("iscrowd", "box_values int64 of boxes"), ("area", "box_values float64 of boxes")]
    # The crowd box (annotation 2) dropped with its values.
    assert stored_values(tmp_path / "out.h5") == {
        "a.jpg": ([0, 0, 0], [area(1), area(3), area(4)]), "b.png": ([0], [area(5)]),
        "c.jpg": ([], [])}
    rows = stored_boxes(tmp_path / "out.h5")
    assert sorted(rows) == ["a.jpg", "b.png", "c.jpg"]
    for image_id, name in ((5, "a.jpg"), (2, "b.png"), (9, "c.jpg")):
        boxes, labels = source_boxes(image_id)
        np.testing.assert_array_equal(rows[name][0], boxes)
        np.testing.assert_array_equal(rows[name][1], labels)
    assert rows["c.jpg"][0].shape == (0, 4)  # no annotation: K = 0
    np.testing.assert_array_equal(rows["a.jpg"][0][1], [50, 30, 60, 40])  # clipped


def test_the_category_table_maps_labels_to_coco_ids_and_names(coco, tmp_path):
    convert(coco, tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        assert [s.decode() for s in f["box_classes"][:]] == ["person", "car", "toothbrush"]
        assert f["box_class_ids"][:].tolist() == [1, 3, 90]
        assert "labels" not in f


def test_inspect_lists_the_category_table(coco, tmp_path):
    convert(coco, tmp_path / "out.h5")
    report = json.loads(run_h5feed("inspect", tmp_path / "out.h5", "--json", check=0).stdout)
    assert report["box_classes"] == [{"name": "person", "source_id": 1},
                                     {"name": "car", "source_id": 3},
                                     {"name": "toothbrush", "source_id": 90}]
    text = run_h5feed("inspect", tmp_path / "out.h5", check=0).stdout
    assert "box classes  3: 0 person (1), 1 car (3), 2 toothbrush (90)" in text


def test_skips_and_crowd_boxes_are_reported(coco, tmp_path):
    report = convert(coco, tmp_path / "out.h5")
    reasons = {s["source"]: s["reason"] for s in report["skipped"]}
    assert set(reasons) == {"missing.jpg", "wrong_size.jpg"}
    assert "missing.jpg" in reasons["missing.jpg"]
    assert "21x20" in reasons["wrong_size.jpg"] and "20x20" in reasons["wrong_size.jpg"]
    assert any("1 crowd annotation" in note and "; --keep-crowd keeps them" in note
               for note in report["notes"])
    kept = convert(coco, tmp_path / "crowd.h5", "--keep-crowd")
    assert not any("crowd" in note for note in kept["notes"])
    boxes, labels = source_boxes(5, keep_crowd=True)
    np.testing.assert_array_equal(stored_boxes(tmp_path / "crowd.h5")["a.jpg"][0], boxes)
    assert stored_boxes(tmp_path / "crowd.h5")["a.jpg"][1].tolist() == labels.tolist()
    assert stored_values(tmp_path / "crowd.h5")["a.jpg"] == ([0, 1, 0, 0], [area(a) for a in
                                                                          range(1, 5)])
    convert(coco, tmp_path / "strict.h5", "--strict", check=1)
    assert not (tmp_path / "strict.h5").exists()


@pytest.mark.parametrize("resize", ["stretch", "crop"])
def test_a_fixed_size_file_holds_boxes_scaled_with_their_image(coco, tmp_path, resize):
    report = convert(coco, tmp_path / "out.h5", "--size", "20x30", "--resize", resize)
    assert report["format_version"] == 1
    rows = stored_boxes(tmp_path / "out.h5")
    for image_id, name in ((5, "a.jpg"), (2, "b.png"), (9, "c.jpg")):
        height, width = next(s for i, _, s, _ in IMAGES if i == image_id)
        window = (0, 0, height, width)
        if resize == "crop":  # the centered part of the target's aspect (20:30)
            if width * 20 >= 30 * height:  # wider than 3:2: every row kept
                cw = (30 * height + 10) // 20
                window = (0, (width - cw) // 2, height, cw)
            else:
                ch = (20 * width + 15) // 30
                window = ((height - ch) // 2, 0, ch, width)
        boxes, labels = placed(*source_boxes(image_id), (height, width), window, (20, 30))
        np.testing.assert_allclose(rows[name][0], boxes, atol=1e-4, err_msg=name)
        np.testing.assert_array_equal(rows[name][1], labels)
    # a.jpg halved by stretch: its 1.5-pixel box is left 0.75 pixels wide, and dropped, with its
    # values; the others' are the JSON's, not recomputed for the resized boxes.
    if resize == "stretch":
        assert len(rows["a.jpg"][0]) == 2
        assert stored_values(tmp_path / "out.h5")["a.jpg"] == ([0, 0], [area(1), area(3)])


def test_broken_annotations_are_errors_naming_what_is_wrong(coco, tmp_path):
    _, images = coco
    bad = tmp_path / "bad.json"
    bad.write_text('{"images": [')
    result = run_h5feed("convert", "coco", bad, images, tmp_path / "o.h5", check=1)
    assert "bad.json is not valid JSON" in result.stderr
    unknown = write_json(tmp_path / "unknown.json",
                         annotations=ANNOTATIONS + [(77, 5, 4, [0, 0, 2, 2], 0)])
    result = run_h5feed("convert", "coco", unknown, images, tmp_path / "o.h5", check=1)
    assert "annotation 77 is of category 4" in result.stderr
    orphan = write_json(tmp_path / "orphan.json",
                        annotations=ANNOTATIONS + [(78, 404, 1, [0, 0, 2, 2], 0)])
    result = run_h5feed("convert", "coco", orphan, images, tmp_path / "o.h5", check=1)
    assert "annotation 78 is of image 404" in result.stderr
    nobox = write_json(tmp_path / "nobox.json",
                       annotations=[(79, 5, 1, [0, 0, 2], 0)])
    result = run_h5feed("convert", "coco", nobox, images, tmp_path / "o.h5", check=1)
    assert "annotation 79 has \"bbox\": [0,0,2], not 4 numbers" in result.stderr
    assert not (tmp_path / "o.h5").exists()


def test_a_category_name_with_a_nul_byte_is_refused_naming_the_category(coco, tmp_path):
    # The names are stored as HDF5 variable-length strings, which end at a NUL: "tooth\0brush"
    # was stored as "tooth" without a word.
    _, images = coco
    named = write_json(tmp_path / "nul.json", categories=[
        {"id": 90, "name": "tooth\u0000brush"}, {"id": 1, "name": "person"},
        {"id": 3, "name": "car"}])
    assert "\\u0000" in named.read_text()
    result = run_h5feed("convert", "coco", named, images, tmp_path / "o.h5", check=1)
    assert "the name of category 90 holds a NUL byte" in result.stderr
    assert "nul.json" in result.stderr
    assert not (tmp_path / "o.h5").exists()


def test_a_folder_that_holds_none_of_the_images_is_an_error_not_a_skip_for_each(coco, tmp_path):
    # The JSON of one split with the folder of another (or the folder above the images) skipped
    # every image with a warning each: 118,287 lines for COCO's train2017 before the error.
    annotations, images = coco
    result = run_h5feed("convert", "coco", annotations, images.parent, tmp_path / "o.h5",
                        check=1)
    assert "none of the" in result.stderr and "give the folder its file_name" in result.stderr
    assert "warning: skipped" not in result.stderr
    assert not (tmp_path / "o.h5").exists()


def test_the_loader_reads_the_boxes_field(coco, tmp_path):
    h5feed = pytest.importorskip("h5feed")
    convert(coco, tmp_path / "out.h5", "--size", "20x30", "--resize", "stretch")
    rows = stored_boxes(tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        sources = [s.decode() for s in f["sources"][:]]
    loader = h5feed.Loader(str(tmp_path / "out.h5"), batch_size=3, sampler="sequential",
                           with_indices=True, as_dict=True, fields=["boxes"])
    batch = next(iter(loader))
    for i, n in enumerate(batch["indices"].tolist()):
        boxes, labels = rows[sources[n]]
        k = int(batch["boxes_count"][i])
        assert k == len(boxes)
        np.testing.assert_array_equal(batch["boxes"][i][:k].cpu().numpy(), boxes)
        assert batch["box_labels"][i][:k].cpu().tolist() == labels.tolist()


def test_parts_merged_keep_the_category_table(coco, tmp_path):
    readable = [image for image in IMAGES if image[3] is not None and image[2] == image[3]]
    ids = {image[0] for image in readable}
    coco = write_json(tmp_path / "readable.json", images=readable,
                      annotations=[a for a in ANNOTATIONS if a[1] in ids]), coco[1]
    parts = [convert(coco, tmp_path / "part.h5", "--part", f"{k}/2", check=0)["path"]
             for k in range(2)]  # part-0000k-of-00002.h5
    run_h5feed("merge", *parts, tmp_path / "merged.h5", check=0)
    with h5py.File(tmp_path / "merged.h5") as f:
        assert [s.decode() for s in f["box_classes"][:]] == ["person", "car", "toothbrush"]
        assert f["box_class_ids"][:].tolist() == [1, 3, 90]
    merged = stored_boxes(tmp_path / "merged.h5")
    whole = stored_boxes(convert(coco, tmp_path / "whole.h5", check=0)["path"])
    assert sorted(merged) == sorted(whole)
    for name, (boxes, labels) in whole.items():
        np.testing.assert_array_equal(merged[name][0], boxes)
        np.testing.assert_array_equal(merged[name][1], labels)


@pytest.mark.parametrize("size", [(), ("--size", "20x30")])
def test_rechunk_keeps_the_category_table_and_the_boxes(coco, tmp_path, size):
    convert(coco, tmp_path / "out.h5", *size)
    run_h5feed("rechunk", tmp_path / "out.h5", tmp_path / "again.h5", "--chunk-bytes", "1M",
               check=0)
    with h5py.File(tmp_path / "again.h5") as f:
        assert [s.decode() for s in f["box_classes"][:]] == ["person", "car", "toothbrush"]
        assert f["box_class_ids"][:].tolist() == [1, 3, 90]
    before, after = stored_boxes(tmp_path / "out.h5"), stored_boxes(tmp_path / "again.h5")
    assert len(before) == len(after) == 3


def test_python_writes_what_the_command_writes(coco, tmp_path):
    h5feed = pytest.importorskip("h5feed")
    annotations, images = coco
    with pytest.warns(UserWarning, match="missing.jpg"):
        report = h5feed.convert_coco(annotations, images, tmp_path / "py.h5", size="20x30",
                                     keep_crowd=True)
    convert(coco, tmp_path / "cli.h5", "--size", "20x30", "--keep-crowd")
    assert report["images"] == 3 and report["notes"] == []
    # The note names the option as Python spells it, not the command's flag.
    with pytest.warns(UserWarning, match="missing.jpg"):
        dropped = h5feed.convert_coco(annotations, images, tmp_path / "dropped.h5")
    assert any("; keep_crowd=True keeps them" in note for note in dropped["notes"])
    ours, theirs = stored_boxes(tmp_path / "py.h5"), stored_boxes(tmp_path / "cli.h5")
    assert sorted(ours) == sorted(theirs)
    for name, (boxes, labels) in theirs.items():
        np.testing.assert_array_equal(ours[name][0], boxes)
        np.testing.assert_array_equal(ours[name][1], labels)


def test_boxes_within_the_top_left_pixel_are_pixels_not_normalized_boxes(coco, tmp_path):
    # COCO's bbox is in pixels: an image whose only boxes lie within its top-left pixel (a
    # one-pixel object at the origin) is no sign of boxes normalized to 0-1, which h5feed.write
    # refuses. The conversion stopped at it; so did a merge of its parts and its rechunk.
    _, images = coco
    readable = [(5, "a.jpg", (40, 60), (40, 60)), (2, "b.png", (50, 30), (50, 30))]
    corner = [(1, 5, 1, [0, 0, 1, 1], 0), (2, 5, 3, [0.25, 0, 0.5, 1], 0),
              (3, 2, 1, [1.5, 2.5, 10, 40], 0)]
    coco = write_json(tmp_path / "corner.json", images=readable, annotations=corner), images
    report = convert(coco, tmp_path / "out.h5", check=0)
    assert report["images"] == 2
    rows = stored_boxes(tmp_path / "out.h5")
    np.testing.assert_array_equal(rows["a.jpg"][0], [[0, 0, 1, 1], [0.25, 0, 0.75, 1]])
    assert rows["a.jpg"][1].tolist() == [0, 1]
    parts = [convert(coco, tmp_path / "part.h5", "--part", f"{k}/2", check=0)["path"]
             for k in range(2)]
    run_h5feed("merge", *parts, tmp_path / "merged.h5", check=0)
    run_h5feed("rechunk", tmp_path / "out.h5", tmp_path / "again.h5", "--chunk-bytes", "1M",
               check=0)
    for again in ("merged.h5", "again.h5"):
        np.testing.assert_array_equal(stored_boxes(tmp_path / again)["a.jpg"][0],
                                      rows["a.jpg"][0])
