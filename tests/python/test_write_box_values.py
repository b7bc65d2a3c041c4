"""h5feed.write with per-box values (docs/python.md, "Per-box values"; docs/format.md, "Masks and
boxes"): a torchvision-like detection target's keys of one value per box (iscrowd, area, ids) are
written as box_values fields of the boxes, read back by h5py as docs/format.md says, listed by
inspect, kept by rechunk and by the merge of a conversion's parts, and delivered by the Loader in
step with the boxes a crop keeps: every kept box's values are those stored for it (ids that name
the row and the box say which), the values of the boxes a crop drops dropped with them, padded
with 0 as box_labels are, or as lists with boxes_as_list. A per-image key (image_id, a tensor of
one element) stays an array field; one whose length equals the boxes' in every measured sample
but whose samples all have one box count is ambiguous, stored per image with a warning. A dict
sample asks for box values with fields={NAME: "box_values of boxes"}; a count other than its
boxes' is refused naming the row, and in a file, it is damage that verify names and a Loader
refuses."""

import os
import shutil
import subprocess
import warnings

import h5py
import numpy as np
import pytest
import torch
import xxhash

import h5feed

HEIGHT, WIDTH = 64, 96


def stored_boxes(row):
    """Row r's boxes, r % 4 of them: spread over the image, so that crops drop some."""
    every = np.array([[2, 3, 30, 40], [50, 10, 90, 60], [70, 40, 95, 63], [10, 45, 40, 62]],
                     np.float32)
    return every[:row % 4]


def box_id(row, k):
    return 1000 * row + k


class Detection:
    """(image, target) samples as torchvision's detection datasets wrapped for transforms v2
    give them, with COCO's iscrowd and area, an id per box and the image's id."""

    def __init__(self, count):
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, row):
        rng = np.random.default_rng(row)
        image = rng.integers(0, 256, (HEIGHT, WIDTH, 3), np.uint8)
        boxes = stored_boxes(row)
        k = np.arange(len(boxes))
        target = {"boxes": torch.from_numpy(boxes), "labels": torch.from_numpy(10 * row + k),
                  "iscrowd": torch.from_numpy(((row + k) % 2).astype(np.uint8)),
                  "area": torch.from_numpy((boxes[:, 2] - boxes[:, 0]) *
                                           (boxes[:, 3] - boxes[:, 1])),
                  "box_id": torch.tensor([box_id(row, j) for j in k], dtype=torch.int32),
                  "image_id": torch.tensor([row])}
        return image, target


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    path = tmp_path_factory.mktemp("box_values") / "detection.h5"
    report = h5feed.write(Detection(24), path, workers=0, progress=False)
    return path, report


def test_per_box_keys_are_box_values_fields_h5py_reads(written):
    path, _ = written
    with h5py.File(path) as f:
        assert list(f.attrs["fields"]) == ["boxes", "box_labels", "iscrowd", "area", "box_id",
                                           "image_id"]
        for name, dtype in (("iscrowd", "uint8"), ("area", "float32"), ("box_id", "int32")):
            assert f[name].attrs["h5feed_field"] == "box_values"
            assert f[name].attrs["h5feed_boxes"] == "boxes"
            assert f[name].attrs["h5feed_box_value_type"] == dtype
        assert f["image_id"].attrs["h5feed_field"] == "array"  # per image: int64[1]
        assert f["image_id"].shape == (24, 1)
        sources = [s.decode() for s in f["sources"][:]]
        for n in range(24):
            row = int(f["image_id"][n][0])
            boxes = np.frombuffer(f["boxes"][n].tobytes(), "<f4").reshape(-1, 4)
            ids = np.frombuffer(f["box_id"][n].tobytes(), "<i4")
            area = np.frombuffer(f["area"][n].tobytes(), "<f4")
            iscrowd = np.frombuffer(f["iscrowd"][n].tobytes(), "<u1")
            k = np.arange(row % 4)
            assert sources[n] == str(row)
            assert np.array_equal(boxes, stored_boxes(row))
            assert ids.tolist() == [box_id(row, j) for j in k]  # K = 0 rows too: empty
            assert np.array_equal(iscrowd, (row + k) % 2)
            assert np.allclose(area, (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))


def test_inspect_shows_box_values_and_rechunk_keeps_them(written, tmp_path):
    path, report = written
    described = {f["name"]: f["type"] for f in report["fields"]}
    assert described["iscrowd"] == "box_values uint8 of boxes"
    inspected = {f["name"]: f["type"] for f in h5feed.inspect(path)["fields"]}
    assert inspected["box_id"] == "box_values int32 of boxes (stored as bytes)"
    assert inspected["box_labels"] == "box_labels of boxes (stored as bytes)"
    out = tmp_path / "rechunked.h5"
    h5feed.rechunk(path, out, chunk_bytes=1 << 16, compression="none")
    with h5py.File(path) as f, h5py.File(out) as g:
        assert list(g.attrs["fields"]) == list(f.attrs["fields"])
        for name in ("iscrowd", "area", "box_id"):
            assert dict(g[name].attrs) == dict(f[name].attrs)
            assert [r.tobytes() for r in g[name][:]] == [r.tobytes() for r in f[name][:]]


def test_the_parts_of_a_conversion_keep_them_merged(written, tmp_path):
    """rechunk --part K/N of the file, then merge: each image keeps its box values."""
    path, _ = written
    h5feed_command = os.path.join(os.environ["H5FEED_BUILD_DIR"], "tools", "h5feed")
    for k in range(2):
        subprocess.run([h5feed_command, "rechunk", str(path), str(tmp_path / "part.h5"),
                        "--part", f"{k}/2", "--chunk-bytes", "64K", "--quiet"], check=True)
    parts = sorted(str(p) for p in tmp_path.glob("part-*-of-00002.h5"))
    assert len(parts) == 2
    subprocess.run([h5feed_command, "merge", *parts, str(tmp_path / "merged.h5"), "--quiet"],
                   check=True)

    def by_image(file):
        with h5py.File(file) as f:
            assert f["iscrowd"].attrs["h5feed_box_value_type"] == "uint8"
            return {int(f["image_id"][n][0]): tuple(f[name][n].tobytes() for name in
                                                    ("boxes", "iscrowd", "area", "box_id"))
                    for n in range(len(f["image_id"]))}

    assert by_image(tmp_path / "merged.h5") == by_image(path)


def check_in_step(batch, listed):
    """Every kept box's values are the stored ones of the box its label names; returns the
    boxes kept and stored."""
    kept = stored = 0
    # The file stores the samples shuffled: image_id names the dataset's row.
    for i, row in enumerate(batch["image_id"][:, 0].tolist()):
        count = int(batch["boxes_count"][i])
        labels, ids = batch["box_labels"][i], batch["box_id"][i]
        iscrowd, area = batch["iscrowd"][i], batch["area"][i]
        if listed:
            assert [len(v) for v in (labels, ids, iscrowd, area)] == [count] * 4
        else:
            for padded in (labels, ids, iscrowd, area):  # 0 past the count, as box_labels
                assert not padded[count:].any()
        assert ids.dtype == torch.int32 and iscrowd.dtype == torch.uint8
        k = labels[:count] - 10 * row  # which stored box each kept one is
        assert k.tolist() == sorted(set(k.tolist()))  # in the stored order, each once
        assert ids[:count].tolist() == [box_id(row, j) for j in k.tolist()]
        assert iscrowd[:count].tolist() == [(row + j) % 2 for j in k.tolist()]
        boxes = stored_boxes(row)[k.numpy()]
        # Carried as stored, never transformed: the area of the box given, not of its crop.
        assert torch.allclose(area[:count], torch.from_numpy(
            (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])))
        kept += count
        stored += row % 4
    return kept, stored


@pytest.mark.parametrize("listed", [False, True])
def test_values_follow_the_boxes_a_crop_keeps(written, listed):
    path, _ = written
    loader = h5feed.Loader(path, batch_size=5, fields=["boxes", "image_id"],
                           boxes_as_list=listed,
                           augment=h5feed.Augment(random_resized_crop=(32, 32), scale=(0.1, 0.5),
                                                  random_flip=True),
                           seed=3, threads=2, with_indices=True, as_dict=True, dtype=None)
    kept = stored = 0
    for epoch in range(3):
        loader.set_epoch(epoch)
        for batch in loader:
            # The boxes bring their labels and values, in the file's order.
            assert list(batch) == ["images", "labels", "boxes", "boxes_count", "box_labels",
                                   "iscrowd", "area", "box_id", "image_id", "indices"]
            got = check_in_step(batch, listed)
            kept, stored = kept + got[0], stored + got[1]
    assert 0 < kept < stored  # the crops dropped boxes, and their values with them


def test_ambiguous_keys_stay_per_image_with_a_warning(tmp_path):
    class OneBoxEach(Detection):
        def __getitem__(self, row):
            image, target = super().__getitem__(4 * row + 1)  # one box each
            return image, target

    with pytest.warns(UserWarning, match=r"'area', 'box_id', 'iscrowd' of the detection "
                                         r"targets held as many values as boxes.*"
                                         r"'box_values of boxes'"):
        h5feed.write(OneBoxEach(6), tmp_path / "one.h5", workers=0, progress=False)
    with h5py.File(tmp_path / "one.h5") as f:
        assert f["iscrowd"].attrs["h5feed_field"] == "array"
        assert f["iscrowd"].shape == (6, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h5feed.write(OneBoxEach(6), tmp_path / "given.h5", workers=0, progress=False,
                     fields={"boxes": None, "box_labels": None,
                             "iscrowd": "box_values of boxes", "area": "box_values float64",
                             "box_id": "box_values int64 of boxes", "image_id": None})
    with h5py.File(tmp_path / "given.h5") as f:
        assert f["iscrowd"].attrs["h5feed_field"] == "box_values"
        assert f["iscrowd"].attrs["h5feed_box_value_type"] == "uint8"  # the first sample's
        assert f["area"].attrs["h5feed_box_value_type"] == "float64"
        assert f["box_id"].attrs["h5feed_box_value_type"] == "int64"  # int32 values, widened
        assert f["image_id"].attrs["h5feed_field"] == "array"


def dict_samples(count, wrong_row=None):
    for row in range(count):
        boxes = stored_boxes(row)
        difficult = [row % 2 == 1] * len(boxes) + ([True] if row == wrong_row else [])
        yield {"image": np.zeros((HEIGHT, WIDTH, 3), np.uint8), "label": row % 3,
               "boxes": boxes, "box_labels": np.arange(len(boxes)), "difficult": difficult}


def test_a_dict_sample_asks_for_box_values_and_a_wrong_count_is_refused(tmp_path):
    fields = {"boxes": "boxes", "box_labels": None, "difficult": "box_values bool of boxes"}
    h5feed.write(dict_samples(8), tmp_path / "voc.h5", fields=fields, progress=False,
                 shuffle=False)
    loader = h5feed.Loader(tmp_path / "voc.h5", batch_size=8, fields=["boxes"],
                           with_indices=True, as_dict=True, dtype=None)
    batch = next(iter(loader))
    assert batch["difficult"].dtype == torch.bool
    for i, row in enumerate(batch["indices"].tolist()):
        assert batch["difficult"][i, :row % 4].tolist() == [row % 2 == 1] * (row % 4)
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[5\]: 2 values in 'difficult' for 1 boxes in 'boxes'; "
                             r"give one value per box"):
        h5feed.write(dict_samples(8, wrong_row=5), tmp_path / "wrong.h5", fields=fields,
                     progress=False, shuffle=False)
    assert not (tmp_path / "wrong.h5").exists()


def test_verify_checks_the_count_and_a_loader_refuses_a_row_of_another(written, tmp_path):
    """A row of values of another count than its boxes, its checksum right (a program that does
    not follow docs/format.md wrote it), is damage: verify names it, a Loader refuses the file."""
    path, _ = written
    report = h5feed.verify(path)
    assert report["ok"]
    assert "box labels and values: every row of box_labels, iscrowd, area, box_id one per box " \
        "of its boxes" in report["checked"]
    damaged = tmp_path / "damaged.h5"
    shutil.copy(path, damaged)
    with h5py.File(damaged, "a") as f:
        n = next(n for n in range(24) if len(f["box_id"][n]) > 0)
        row = np.frombuffer(f["box_id"][n].tobytes(), "<i4")
        extra = np.append(row, row[:1]).astype("<i4")
        f["box_id"][n] = np.frombuffer(extra.tobytes(), np.uint8)
        f["field_checksums"]["box_id"][n] = xxhash.xxh3_64_intdigest(extra.tobytes())
    report = h5feed.verify(damaged)
    assert not report["ok"]
    assert any(f"row {n} of field box_id in {damaged} has {len(extra)} values for the "
               f"{len(row)} boxes of field boxes" in problem for problem in report["problems"])
    with pytest.raises(h5feed.CorruptDataError,
                       match=f"row {n} of field box_id .* has {len(extra)} "
                             f"values for the {len(row)} boxes"):
        h5feed.Loader(damaged, batch_size=4, fields=["boxes"])
